#!/usr/bin/env bash
# Builds gpu-carry2/s14g.tar.xz (issue 13 session 14, call G): gpu-conv1d's gpu, kernels and
# properties tests (the warpgroup kernel with its outputs staged in the span's regions) and the
# report bench.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s14g
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --test gpu --test kernels --test properties --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) | carry_collect s14g
carry_pack s14g
