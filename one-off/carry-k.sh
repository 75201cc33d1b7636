#!/usr/bin/env bash
# Builds gpu-carry2/k.tar.xz (issue 14, call K): gpu-conv1d's host-pipeline and axis tests after
# the FFT path joined the outer-axis pipeline, and gpu-reduce's tests after the arg_index
# refactor; release, features cuda and fault-injection.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin k
cargo test --release --features cuda,fault-injection -p gpu-conv1d -p gpu-reduce \
  --test host_pipeline --test axis_gpu --test gpu --test shaped_gpu --test fault_injection \
  --no-run --message-format=json 2>/dev/null | carry_collect k
ls gpu-carry2/k
carry_pack k
