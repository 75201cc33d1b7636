#!/usr/bin/env bash
# Builds gpu-carry3/s31c.tar.xz (thirty-first session, call C): the shipped rule (sums and
# 4-byte values staged at every tile count, 8-byte prod/min/max at one tile) over the columns
# kernels with lane widths apart: gpu-scan's unit tests and the suites that reach the columns
# scans.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s31c
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --lib \
  --test columns_staged_gpu --test columns_staged_limits_gpu --test shaped_gpu --test prefetch_gpu \
  --test host_pipeline --test properties --message-format=json 2>/dev/null | carry_collect s31c
carry_pack s31c
mkdir -p gpu-carry3 && mv gpu-carry2/s31c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
