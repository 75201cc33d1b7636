#!/usr/bin/env bash
# Builds gpu-carry3/s29a.tar.xz (twenty-ninth session, calls A and B): release binaries of this
# tree (the staged long column spans): the shapes bench, gpu-scan's unit tests and its columns,
# shaped, prefetch and host-pipeline suites, gpu-conv1d's unit tests and its gpu and oom_gpu
# suites (owed since 6fee1e1).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s29a
cargo test --release --no-run --features gpu-scan/cuda,gpu-conv1d/cuda -p gpu-scan -p gpu-conv1d \
  --lib --test columns_staged_gpu --test shaped_gpu --test prefetch_gpu --test host_pipeline \
  --test gpu --test oom_gpu --message-format=json 2>/dev/null | carry_collect s29a
cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json \
  2>/dev/null | carry_collect s29a
ls gpu-carry2/s29a
carry_pack s29a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s29a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
