#!/usr/bin/env bash
# Builds gpu-carry2/s11.tar.xz (issue 13 session 11): every gpu-scan test binary (the 16-bit
# scans along axes and over segments, and the lane and segment-tile templates they changed),
# gpu-reduce's shaped tests (its kernels share lanes.cuh and segment_tiles.cuh), the shapes
# benchmark, and the shapes benchmark of the previous commit (/tmp/old-target) for the
# before/after comparison of the f32 and i32 scans.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s11
(cargo test --release --features cuda,fault-injection -p gpu-scan --tests --lib --no-run --message-format=json 2>/dev/null
 cargo test --release --features cuda -p gpu-reduce --test shaped_gpu --test half_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) | carry_collect s11
cp /tmp/old-target/release/shapes gpu-carry2/s11/old__shapes
ls -la gpu-carry2/s11
carry_pack s11
