#!/usr/bin/env bash
# Builds gpu-carry3/x17d.tar.xz (seventeenth session, call D): gpu-conv1d's GPU test binaries and
# the conv1d-fft bench of this build (final: twiddle rows, lean checks for 4-byte accumulators up to 4096 points, refitted sizes), and 9c77344's conv1d-fft (built to
# /tmp/old-target first) as old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x17d
(cargo test --release --features cuda -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x17d
cp /tmp/old-target/release/conv1d-fft gpu-carry2/x17d/old__conv1d-fft
for t in cpu axis_cpu fault_injection inputs; do rm -f gpu-carry2/x17d/gpu-conv1d__$t; done
ls -la gpu-carry2/x17d
carry_pack x17d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x17d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
