#!/usr/bin/env bash
# Builds gpu-carry3/s32b.tar.xz (thirty-second session, call B): the columns reduction's one
# loop for both lane widths and 16-bit vector columns. shapes-before (/tmp/s32bin, built from
# c365976's kernels and rule with this session's shapes bench) and shapes-after; the test
# binaries that reach the columns reductions, and those call A ran side by side with others
# although they need the GPU alone (fault injection) or did not reach.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s32b
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s32b
mv gpu-carry2/s32b/*__shapes gpu-carry2/s32b/shapes-after
cp /tmp/s32bin/shapes-before gpu-carry2/s32b/shapes-before
cargo test --release --no-run --features cuda,fault-injection -p gpu-reduce --lib --test shaped_gpu --test kernels \
  --test gpu --test properties --test half_gpu --test host_pipeline --test tuning_gpu \
  --test fault_injection --message-format=json 2>/dev/null | carry_collect s32b
cargo test --release --no-run --features cuda,fault-injection -p gpu-scan --test fault_injection \
  --test host_pipeline --test prefetch_gpu --message-format=json 2>/dev/null | carry_collect s32b
cargo test --release --no-run --features cuda,fault-injection -p gpu-core --lib --test driver_faults --test lanes \
  --message-format=json 2>/dev/null | carry_collect s32b
cargo test --release --no-run --features cuda,fault-injection -p gpu-conv1d --test fault_injection --test inputs \
  --message-format=json 2>/dev/null | carry_collect s32b
cargo test --release --no-run --features cuda,fault-injection -p gpu-sync --test fault_injection --test context_lost \
  --message-format=json 2>/dev/null | carry_collect s32b
ls gpu-carry2/s32b
carry_pack s32b
mkdir -p gpu-carry3 && mv gpu-carry2/s32b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
