#!/usr/bin/env bash
# Builds gpu-carry2/s50b.tar.xz (beside s50.tar.xz, which it keeps) from this checkout (branch
# s50-store-interior): gpu-conv1d's gpu and tuning_gpu test binaries and the report (release,
# features `cuda`).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_add s50b
for t in gpu tuning_gpu; do
  cargo test -p gpu-conv1d --release --features cuda --test "$t" --no-run --message-format=json 2>/dev/null |
    carry_collect s50b
done
cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null |
  carry_collect s50b
ls -la gpu-carry2/s50b
carry_pack s50b
