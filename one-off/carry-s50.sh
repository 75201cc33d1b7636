#!/usr/bin/env bash
# Builds gpu-carry2/s50.tar.xz for one-off/s50-h200.sh from this checkout (main): gpu-scan's
# warp_specialized_gpu, gpu and status_reuse_gpu test binaries, gpu-conv1d's gpu test binary and
# the report (release, features `cuda`). The scan rows "before the kernel" come from the same
# report with a tuning table that turns the kernel off (scan.warp_specialized_from = 2^40), so no
# older build is needed.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s50
for t in warp_specialized_gpu gpu status_reuse_gpu; do
  cargo test -p gpu-scan --release --features cuda --test "$t" --no-run --message-format=json 2>/dev/null |
    carry_collect s50
done
cargo test -p gpu-conv1d --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null |
  carry_collect s50
cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null |
  carry_collect s50
ls -la gpu-carry2/s50
carry_pack s50
