#!/usr/bin/env bash
# Builds gpu-carry2/l.tar.xz (issue 14, call L): gpu-conv1d's host-pipeline and axis tests after
# the span rules (tensor-core path along the outer axis, the flat pipeline's tensor reach),
# release, features cuda and fault-injection.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin l
cargo test --release --features cuda,fault-injection -p gpu-conv1d \
  --test host_pipeline --test axis_gpu --no-run --message-format=json 2>/dev/null | carry_collect l
ls gpu-carry2/l
carry_pack l
