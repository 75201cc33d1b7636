#!/usr/bin/env bash
# Builds gpu-carry3/x15c.tar.xz (fifteenth session, call C): gpu-conv1d's GPU test binaries and
# the conv1d-fft and report benches of this build (b4a7165 and after: the refitted sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x15c
(cargo test --release --features cuda -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --bin tune --message-format=json 2>/dev/null) | carry_collect x15c
for t in cpu axis_cpu fault_injection inputs; do rm -f gpu-carry2/x15c/gpu-conv1d__$t; done
ls -la gpu-carry2/x15c
carry_pack x15c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x15c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
