#!/usr/bin/env bash
# Builds gpu-carry2/s44.tar.xz for one-off/h100-s44.sh: gpu-conv1d's `gpu` test binary (release,
# features `cuda`) and the report, of this checkout: Auto's warpgroup crossing at 2^28 (w >= 5).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s44
cargo test -p gpu-conv1d --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null |
  carry_collect s44
cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null |
  carry_collect s44
ls gpu-carry2/s44
carry_pack s44
