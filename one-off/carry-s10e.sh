#!/usr/bin/env bash
# Builds gpu-carry2/s10e.tar.xz (issue 13 session 10, call E): gpu-conv1d gpu, properties,
# host_pipeline, axis_gpu and unit tests after Auto took tensor cores from w = 11 in long rows.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s10e
(cargo test --release --features cuda,fault-injection -p gpu-conv1d \
  --test gpu --test properties --test host_pipeline --test axis_gpu --lib --no-run --message-format=json 2>/dev/null) | carry_collect s10e
ls -la gpu-carry2/s10e
carry_pack s10e
