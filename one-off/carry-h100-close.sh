#!/usr/bin/env bash
# Builds gpu-carry3/close.tar.xz for the H100 closing plan's table calls (one-off/h100-close.md):
# this checkout's report, shapes and conv1d-fft benchmarks; the report of fd370b1 (issue 24's
# "before": the last build before per-device tuning) for the same-call before/after; and, where
# SHAPES_BEFORE names a shapes binary (main's, when this checkout is a branch to be measured
# against it), that one as shapes-before. Test binaries travel in the bundle
# (scripts/gpu-bundle.sh), never beside this carry: the two exceed the 64 MiB a call may carry.
# Before the call, take docs/results and the kpacks out of the index (one-off/h100-close.md, "Slim").
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin close
cargo build --release -p gpu-prims-benches --features cuda --bin report --bin shapes --bin conv1d-fft \
  --message-format=json 2>/dev/null | carry_collect close
OLD=/tmp/gpu-prims-fd370b1
[ -d "$OLD" ] || git worktree add -f "$OLD" fd370b1 > /dev/null
(cd "$OLD" && CARGO_TARGET_DIR=/tmp/gpu-prims-fd370b1-target \
   cargo build --release -p gpu-prims-benches --features cuda --bin report 2>/dev/null)
cp /tmp/gpu-prims-fd370b1-target/release/report gpu-carry2/close/report-fd370b1
if [ -n "${SHAPES_BEFORE:-}" ]; then cp "$SHAPES_BEFORE" gpu-carry2/close/shapes-before; fi
ls gpu-carry2/close
carry_pack close
mkdir -p gpu-carry3 && mv gpu-carry2/close.tar.xz gpu-carry3/ && rm -rf gpu-carry2
ls -la gpu-carry3
