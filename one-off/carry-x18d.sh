#!/usr/bin/env bash
# Builds gpu-carry3/x18d.tar.xz (eighteenth session, call D): gpu-conv1d's GPU test binaries and
# the conv1d-fft bench of the final build (radix-32 transforms, refitted sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x18d
(cargo test --release --features cuda -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x18d
for t in cpu axis_cpu fault_injection inputs; do rm -f gpu-carry2/x18d/gpu-conv1d__$t; done
ls -la gpu-carry2/x18d
carry_pack x18d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x18d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
