#!/usr/bin/env bash
# Builds gpu-carry3/x19f.tar.xz (nineteenth session, call F): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of this build (bf16 span values widened by a 32-bit pack in the FFT kernels), and
# 7d4492b's conv1d-fft bench (built in /tmp/old-target from a worktree) as old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x19f
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x19f
cp /tmp/old-target/release/conv1d-fft gpu-carry2/x19f/old__conv1d-fft
ls -la gpu-carry2/x19f
carry_pack x19f
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x19f.tar.xz gpu-carry3/ && rm -rf gpu-carry2
