#!/usr/bin/env bash
# Builds gpu-carry3/x14b.tar.xz (fourteenth session, call B): gpu-scan's GPU test binaries
# and the shapes bench of this build (columns spans: the totals scanned per lane, one span per
# block; segment tiles over the epoch-tagged status), and 428a9fb's kernels with this shapes
# source (built to /tmp/old-target first) as old__shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x14b
(cargo test --release --features cuda -p gpu-scan --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) | carry_collect x14b
cp /tmp/old-target/release/shapes gpu-carry2/x14b/old__shapes
for t in shaped_cpu cpu fault_injection inputs scan_builder kernels jit_disabled properties half_gpu half_shaped_gpu tuning_gpu prefetch_gpu; do
  rm -f gpu-carry2/x14b/gpu-scan__$t gpu-carry2/x14b/gpu-reduce__$t
done
ls -la gpu-carry2/x14b
carry_pack x14b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x14b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
