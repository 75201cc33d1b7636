#!/usr/bin/env bash
# Builds gpu-carry2/m.tar.xz (issue 14, call M): gpu-conv1d's gpu, fault-injection, properties and inputs tests after
# the span rules (tensor-core path along the outer axis, the flat pipeline's tensor reach),
# release, features cuda and fault-injection.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin m
cargo test --release --features cuda,fault-injection -p gpu-conv1d \
  --test gpu --test fault_injection --test properties --test inputs --no-run --message-format=json 2>/dev/null | carry_collect m
ls gpu-carry2/m
carry_pack m
