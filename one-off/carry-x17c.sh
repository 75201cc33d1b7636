#!/usr/bin/env bash
# Builds gpu-carry3/x17c.tar.xz (seventeenth session, call C): gpu-conv1d's GPU test binaries and
# the conv1d-fft bench of this build (twiddle rows, lean checks and stores up to 4096 points), and 9c77344's conv1d-fft (built to
# /tmp/old-target first) as old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x17c
(cargo test --release --features cuda -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x17c
cp /tmp/old-target/release/conv1d-fft gpu-carry2/x17c/old__conv1d-fft
for t in cpu axis_cpu fault_injection inputs; do rm -f gpu-carry2/x17c/gpu-conv1d__$t; done
ls -la gpu-carry2/x17c
carry_pack x17c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x17c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
