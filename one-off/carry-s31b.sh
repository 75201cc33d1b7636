#!/usr/bin/env bash
# Builds gpu-carry3/s31b.tar.xz (thirty-first session, calls B and C): the columns scans' lane
# widths apart for every operator but the sums, every operator's long column spans staged at
# every tile count (the experiment's rule): shapes, gpu-scan's unit tests and the suites that
# reach the columns scans.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s31b
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --lib \
  --test columns_staged_gpu --test columns_staged_limits_gpu --test shaped_gpu --test prefetch_gpu \
  --test host_pipeline --message-format=json 2>/dev/null | carry_collect s31b
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s31b
carry_pack s31b
mkdir -p gpu-carry3 && mv gpu-carry2/s31b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
