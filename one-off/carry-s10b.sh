#!/usr/bin/env bash
# Builds gpu-carry2/s10b.tar.xz (issue 13 session 10, calls B and C): every gpu-conv1d GPU test
# binary (the tensor-core kernel's cp.async staging and chunk addressing) and the report.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s10b
(cargo test --release --features cuda,fault-injection -p gpu-conv1d \
  --test gpu --test fault_injection --test properties --test inputs --test host_pipeline \
  --test axis_gpu --test fft_gpu --test kernels --test tuning_gpu --lib --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) | carry_collect s10b
ls -la gpu-carry2/s10b
carry_pack s10b
