#!/usr/bin/env bash
# Builds gpu-carry3/x14a.tar.xz (fourteenth session, call A): gpu-scan's and gpu-reduce's GPU
# test binaries and the shapes bench of this build (segment tiles read the epoch-tagged status:
# 8- and 16-byte values in tagged words), and 428a9fb's shapes (built to /tmp/old-target first)
# as old__shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x14a
(cargo test --release --features cuda -p gpu-scan -p gpu-reduce --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) | carry_collect x14a
cp /tmp/old-target/release/shapes gpu-carry2/x14a/old__shapes
for t in shaped_cpu cpu fault_injection inputs scan_builder kernels jit_disabled; do
  rm -f gpu-carry2/x14a/gpu-scan__$t gpu-carry2/x14a/gpu-reduce__$t
done
ls -la gpu-carry2/x14a
carry_pack x14a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x14a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
