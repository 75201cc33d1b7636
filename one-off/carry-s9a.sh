#!/usr/bin/env bash
# Builds gpu-carry2/s9a.tar.xz (issue 12 session 9, call A): gpu-conv1d's GPU tests (the
# tensor_f32_tolerance fix and review commit a6a9e62 never ran on a GPU) and the shapes bench
# (Nsight Compute source counters of the long-span columns scan).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s9a
(cargo test --release --features cuda,fault-injection -p gpu-conv1d \
  --test gpu --test fault_injection --test properties --test inputs --test host_pipeline \
  --test axis_gpu --test fft_gpu --test kernels --test tuning_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) | carry_collect s9a
ls -la gpu-carry2/s9a
carry_pack s9a
