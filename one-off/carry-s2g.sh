#!/usr/bin/env bash
# Builds gpu-carry2/g.tar.xz (issue 24 session 2, call G on nvidia-h200): gpu-conv1d's GPU test
# binaries (the tensor-core launch refactor 7af53c9 and the warpgroup host-pipeline test, never
# run on a GPU before).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin g
cargo test --release --features cuda -p gpu-conv1d --test gpu --test host_pipeline --test kernels --test properties --test tuning_gpu --no-run --message-format=json 2>/dev/null | carry_collect g
carry_pack g
