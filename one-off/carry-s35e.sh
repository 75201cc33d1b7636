#!/usr/bin/env bash
# Builds gpu-carry3/s35e.tar.xz (thirty-fifth session, call E): `shapes` before (65bbe61, taken
# from gpu-carry3/s35.tar.xz's shapes-after) and after (four rows a vector for two 16-bit lanes
# side by side in the columns reduction), and the test binaries that reach the columns kernels.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s35e
tar -C /tmp -xJf gpu-carry3/s35.tar.xz s35/shapes-after
cp /tmp/s35/shapes-after gpu-carry2/s35e/shapes-before
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s35e
mv gpu-carry2/s35e/*__shapes gpu-carry2/s35e/shapes-after
cargo test --release --no-run --features cuda -p gpu-reduce --test shaped_gpu --test kernels \
  --test gpu --test properties --test half_gpu --test host_pipeline \
  --message-format=json 2>/dev/null | carry_collect s35e
cargo test --release --no-run --features cuda -p gpu-core --test lanes \
  --message-format=json 2>/dev/null | carry_collect s35e
ls gpu-carry2/s35e
carry_pack s35e
mv gpu-carry2/s35e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
