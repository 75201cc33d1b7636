#!/usr/bin/env bash
# Builds gpu-carry3/s12b.tar.xz (session 12, call B): gpu-reduce's GPU test binaries of this
# build (the in-warp segment lanes, the short columns bound), its shapes bench, and main's
# shapes bench before this session (/tmp/old-target) as old__shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s12b
(cargo test --release --features cuda -p gpu-reduce --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) | carry_collect s12b
cp /tmp/old-target/release/shapes gpu-carry2/s12b/old__shapes
ls -la gpu-carry2/s12b
carry_pack s12b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s12b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
