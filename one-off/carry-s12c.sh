#!/usr/bin/env bash
# Builds gpu-carry3/s12c.tar.xz (session 12, call C): gpu-reduce's GPU test binaries of this
# build (the in-warp form for axis lanes too), its shapes bench, and call B's shapes bench
# (commit 2f070d7, copied to /tmp/b-shapes before this build) as old__shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s12c
(cargo test --release --features cuda -p gpu-reduce --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) | carry_collect s12c
cp /tmp/b-shapes gpu-carry2/s12c/old__shapes
rm -f gpu-carry2/s12c/gpu-reduce__shaped_cpu gpu-carry2/s12c/gpu-reduce__cpu gpu-carry2/s12c/gpu-reduce__fault_injection
ls -la gpu-carry2/s12c
carry_pack s12c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s12c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
