#!/usr/bin/env bash
# Builds gpu-carry2/b.tar.xz (issue 14, call B): the host-pipeline and fault-injection tests of
# gpu-reduce, gpu-scan and gpu-conv1d.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin b
(for c in gpu-reduce gpu-scan gpu-conv1d; do
   cargo test -p $c --release --features cuda,fault-injection --test host_pipeline --test fault_injection --no-run --message-format=json 2>/dev/null
 done) | carry_collect b
ls -la gpu-carry2/b
carry_pack b
