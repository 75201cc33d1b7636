#!/usr/bin/env bash
# Builds gpu-carry3/x18b.tar.xz (eighteenth session, call B): gpu-conv1d's GPU test binaries and
# the conv1d-fft bench of this build (radix-32 transforms of 8192 and 16384 points), and 3480628's conv1d-fft (built to
# /tmp/old-target first) as old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x18b
(cargo test --release --features cuda -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x18b
cp /tmp/old-target/release/conv1d-fft gpu-carry2/x18b/old__conv1d-fft
for t in cpu axis_cpu fault_injection inputs; do rm -f gpu-carry2/x18b/gpu-conv1d__$t; done
ls -la gpu-carry2/x18b
carry_pack x18b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x18b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
