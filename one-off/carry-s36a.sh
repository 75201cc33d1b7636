#!/usr/bin/env bash
# Builds gpu-carry3/s36a.tar.xz (thirty-sixth session, call A): `shapes` before (main c6cb274,
# built beforehand into SHAPES_BEFORE) and after (branch s35-four-rows), and the test binaries
# that reach the columns kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s36a
cp "${SHAPES_BEFORE:?}" gpu-carry2/s36a/shapes-before
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s36a
mv gpu-carry2/s36a/*__shapes gpu-carry2/s36a/shapes-after
cargo test --release --no-run --features cuda -p gpu-reduce --test shaped_gpu \
  --test gpu --test properties --test half_gpu \
  --message-format=json 2>/dev/null | carry_collect s36a
cargo test --release --no-run --features cuda -p gpu-core --test lanes \
  --message-format=json 2>/dev/null | carry_collect s36a
ls gpu-carry2/s36a
carry_pack s36a
mkdir -p gpu-carry3 && mv gpu-carry2/s36a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
