#!/usr/bin/env bash
# Builds gpu-carry2/a.tar.xz (issue 14, session of 2026-11-27, call A): the host-pipeline,
# shaped and fault-injection tests of gpu-reduce, gpu-scan and gpu-conv1d, and gpu-core's.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin a
(for c in gpu-reduce gpu-scan; do
   cargo test -p $c --release --features cuda,fault-injection --test host_pipeline --test shaped_gpu --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-conv1d --release --features cuda,fault-injection --test host_pipeline --test axis_gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-scan --release --features cuda,fault-injection --test fault_injection --test gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-reduce --release --features cuda,fault-injection --test fault_injection --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-core --release --features cuda,fault-injection --lib --no-run --message-format=json 2>/dev/null) |
  carry_collect a
ls -la gpu-carry2/a
carry_pack a
