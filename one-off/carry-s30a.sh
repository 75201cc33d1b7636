#!/usr/bin/env bash
# Builds gpu-carry3/s30a.tar.xz (thirtieth session, call A): the staged column spans at the
# limits (columns_staged_limits_gpu), the suites whose helpers moved (columns_staged_gpu,
# prefetch_gpu, gpu-conv1d oom_gpu), gpu-scan's unit tests, and the shapes and first-call
# binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s30a
cargo test --release --no-run --features gpu-scan/cuda,gpu-conv1d/cuda -p gpu-scan -p gpu-conv1d \
  --lib --test columns_staged_limits_gpu --test columns_staged_gpu --test prefetch_gpu \
  --test oom_gpu --message-format=json 2>/dev/null | carry_collect s30a
cargo build --release -p gpu-prims-benches --features cuda --bin shapes --bin first-call \
  --message-format=json 2>/dev/null | carry_collect s30a
carry_pack s30a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s30a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
