#!/usr/bin/env bash
# Builds gpu-carry2/e8.tar.xz for one-off/h200-s8e.sh: the gpu-scan GPU suites calls C and D did
# not run, on the session's final build.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin e8
(for t in shaped_gpu half_shaped_gpu host_pipeline tuning_gpu properties prefetch_gpu; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done) |
  carry_collect e8
carry_pack e8
