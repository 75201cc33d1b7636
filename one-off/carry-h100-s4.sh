#!/usr/bin/env bash
# Builds gpu-carry2/h.tar.xz for one-off/h100-s4.sh (issue 24 on an H100): this build's report
# and gpu-scan / gpu-conv1d GPU test binaries, and the report of fd370b1 (session 3's final
# build, a zeroing launch before every look-back scan) for a same-call before/after.
# Run from a clean tree; takes about 8 minutes (the old report builds in its own target dir).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
source one-off/carry-lib.sh
carry_begin h
(for t in gpu status_reuse_gpu tuning_gpu prefetch_gpu shaped_gpu; do
   cargo test -p gpu-scan --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 for t in gpu tuning_gpu; do
   cargo test -p gpu-conv1d --release --features cuda --test $t --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) |
  carry_collect h
OLD=/tmp/gpu-prims-fd370b1
[ -d "$OLD" ] || git worktree add -f "$OLD" fd370b1 > /dev/null
(cd "$OLD" && CARGO_TARGET_DIR=/tmp/gpu-prims-fd370b1-target \
   cargo build --release -p gpu-prims-benches --features cuda --bin report 2>/dev/null)
cp /tmp/gpu-prims-fd370b1-target/release/report gpu-carry2/h/report-fd370b1
carry_pack h
