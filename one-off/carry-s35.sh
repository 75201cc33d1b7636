#!/usr/bin/env bash
# Builds gpu-carry3/s35.tar.xz (thirty-fifth session): `shapes` before (branch
# s33-short-stores~1, main's kernels) and after (the branch: 16-byte result stores in the
# thread-per-group columns reduction). The test binaries come from scripts/gpu-bundle.sh over the
# branch. Run it from a clean checkout of the branch.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
git checkout -q s33-short-stores~1
cargo build --release -p gpu-prims-benches --features cuda --bin shapes
mkdir -p /tmp/s35bin && cp target/release/shapes /tmp/s35bin/shapes-before
git checkout -q s33-short-stores
carry_begin s35
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s35
mv gpu-carry2/s35/*__shapes gpu-carry2/s35/shapes-after
cp /tmp/s35bin/shapes-before gpu-carry2/s35/shapes-before
ls gpu-carry2/s35
carry_pack s35
mkdir -p gpu-carry3 && mv gpu-carry2/s35.tar.xz gpu-carry3/ && rm -rf gpu-carry2
