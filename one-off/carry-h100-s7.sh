#!/usr/bin/env bash
# Builds gpu-carry2/h7.tar.xz for one-off/h100-s7.sh (the first H100 call since session 3):
# this build's report and shapes benchmarks and the report of fd370b1 (session 3's final build)
# for a same-call before/after. Tests go through scripts/gpu-bundle.sh and scripts/gpu-run.sh
# tests in a call of their own. Run from a clean tree; the carry plus the tree exceed the run
# tool's 64 MiB unless crates/*/src/ptx/*.kpack are moved aside for the call (the binaries embed
# them) and put back right after.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin h7
cargo build --release -p gpu-prims-benches --features cuda --bin report --bin shapes --message-format=json 2>/dev/null |
  carry_collect h7
OLD=/tmp/gpu-prims-fd370b1
[ -d "$OLD" ] || git worktree add -f "$OLD" fd370b1 > /dev/null
(cd "$OLD" && CARGO_TARGET_DIR=/tmp/gpu-prims-fd370b1-target \
   cargo build --release -p gpu-prims-benches --features cuda --bin report 2>/dev/null)
cp /tmp/gpu-prims-fd370b1-target/release/report gpu-carry2/h7/report-fd370b1
carry_pack h7
