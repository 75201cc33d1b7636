#!/usr/bin/env bash
# Builds gpu-carry3/s32d.tar.xz (thirty-second session, call D): call B's build with the
# thread-per-lane-group columns reduction for 16-bit floats. shapes-mid (call B's shapes-after,
# kept in /tmp/s32bin) and shapes-after; the same test binaries as call B's carry.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s32d
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s32d
mv gpu-carry2/s32d/*__shapes gpu-carry2/s32d/shapes-after
cp /tmp/s32bin/shapes-mid gpu-carry2/s32d/shapes-mid
cargo test --release --no-run --features cuda,fault-injection -p gpu-reduce --lib --test shaped_gpu --test kernels \
  --test gpu --test properties --test half_gpu --test host_pipeline --test tuning_gpu \
  --test fault_injection --message-format=json 2>/dev/null | carry_collect s32d
cargo test --release --no-run --features cuda,fault-injection -p gpu-scan --test fault_injection \
  --test host_pipeline --test prefetch_gpu --message-format=json 2>/dev/null | carry_collect s32d
cargo test --release --no-run --features cuda,fault-injection -p gpu-core --lib --test driver_faults --test lanes \
  --message-format=json 2>/dev/null | carry_collect s32d
cargo test --release --no-run --features cuda,fault-injection -p gpu-conv1d --test fault_injection --test inputs \
  --message-format=json 2>/dev/null | carry_collect s32d
cargo test --release --no-run --features cuda,fault-injection -p gpu-sync --test fault_injection --test context_lost \
  --message-format=json 2>/dev/null | carry_collect s32d
ls gpu-carry2/s32d
carry_pack s32d
mkdir -p gpu-carry3 && mv gpu-carry2/s32d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
