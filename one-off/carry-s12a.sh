#!/usr/bin/env bash
# Builds gpu-carry3/s12a.tar.xz (session 12, call A): the shapes bench of this build (the short
# columns reduction bounded to three blocks, one step for lanes of up to four rows) and of main
# before it (/tmp/old-target), and gpu-reduce's shaped_gpu tests of this build.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s12a
(cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null
 cargo test --release --features cuda -p gpu-reduce --test shaped_gpu --no-run --message-format=json 2>/dev/null) | carry_collect s12a
cp /tmp/old-target/release/shapes gpu-carry2/s12a/old__shapes
ls -la gpu-carry2/s12a
carry_pack s12a
mkdir -p gpu-carry3 && mv gpu-carry2/s12a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
