#!/usr/bin/env bash
# Builds gpu-carry2/e.tar.xz (issue 14, call E): the test binaries of this session's changes
# (conv1d along the outer axis, reversed views, the scan rows' kernel lookup), release,
# features cuda and fault-injection.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin e
cargo test --release --features cuda,fault-injection -p gpu-conv1d -p gpu-reduce -p gpu-scan -p gpu-core \
  --test host_pipeline --test axis_gpu --test shaped_gpu --test gpu --test layout_gpu --test fault_injection --lib \
  --no-run --message-format=json 2>/dev/null | carry_collect e
ls gpu-carry2/e
carry_pack e
