#!/usr/bin/env bash
# Builds gpu-carry3/s33.tar.xz (thirty-third session, for the first session lent a GPU): the
# thread-per-group columns reduction's 16-byte result stores (branch s33-short-stores, one
# commit on top of main). shapes-before (built here from the branch's parent, main's kernels)
# and shapes-after; the test binaries that reach the columns reductions. Run it from a clean
# checkout of the branch.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
git checkout -q s33-short-stores~1
cargo build --release -p gpu-prims-benches --features cuda --bin shapes
mkdir -p /tmp/s33bin && cp target/release/shapes /tmp/s33bin/shapes-before
git checkout -q s33-short-stores
carry_begin s33
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s33
mv gpu-carry2/s33/*__shapes gpu-carry2/s33/shapes-after
cp /tmp/s33bin/shapes-before gpu-carry2/s33/shapes-before
cargo test --release --no-run --features cuda -p gpu-reduce --lib --test shaped_gpu --test kernels \
  --test gpu --test properties --test half_gpu --test host_pipeline \
  --message-format=json 2>/dev/null | carry_collect s33
cargo test --release --no-run --features cuda -p gpu-core --test lanes \
  --message-format=json 2>/dev/null | carry_collect s33
ls gpu-carry2/s33
carry_pack s33
mkdir -p gpu-carry3 && mv gpu-carry2/s33.tar.xz gpu-carry3/ && rm -rf gpu-carry2
