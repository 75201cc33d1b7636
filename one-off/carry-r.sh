#!/usr/bin/env bash
# Builds gpu-carry2/r.tar.xz: gpu-reduce's and gpu-scan's GPU tests and the shapes bench with
# the segment-lane queue, and the previous shapes build (call R).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin r
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --test gpu --test properties --test host_pipeline --test half_gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-scan --release --features cuda --test shaped_gpu --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect r
cp /tmp/exp/shapes-base gpu-carry2/r/shapes-base
carry_pack r
