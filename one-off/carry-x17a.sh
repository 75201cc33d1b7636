#!/usr/bin/env bash
# Builds gpu-carry3/x17a.tar.xz (seventeenth session, call A): gpu-conv1d's GPU test binaries of 9c77344's
# kernels (the owed runs: fft_gpu's 16-bit sizes, host_pipeline, properties, kernels).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x17a
cargo test --release --features cuda -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null | carry_collect x17a
for t in cpu axis_cpu fault_injection inputs; do rm -f gpu-carry2/x17a/gpu-conv1d__$t; done
ls -la gpu-carry2/x17a
carry_pack x17a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x17a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
