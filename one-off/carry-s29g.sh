#!/usr/bin/env bash
# Builds gpu-carry3/s29g.tar.xz (twenty-ninth session, call G): gpu-scan's columns_staged_gpu,
# shaped_gpu and host_pipeline suites with the built-in staged spans from 2^24.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s29g
cargo test --release --no-run --features gpu-scan/cuda -p gpu-scan --test columns_staged_gpu \
  --test shaped_gpu --test host_pipeline --message-format=json 2>/dev/null | carry_collect s29g
carry_pack s29g
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s29g.tar.xz gpu-carry3/ && rm -rf gpu-carry2
