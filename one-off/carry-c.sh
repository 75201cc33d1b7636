#!/usr/bin/env bash
# Builds gpu-carry2/c.tar.xz (issue 14, call C): the host-pipeline tests of gpu-reduce, gpu-scan
# and gpu-conv1d (permuted and strided layouts added).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin c
(for c in gpu-reduce gpu-scan gpu-conv1d; do
   cargo test -p $c --release --features cuda,fault-injection --test host_pipeline --no-run --message-format=json 2>/dev/null
 done) | carry_collect c
carry_pack c
