#!/usr/bin/env bash
# Builds gpu-carry3/x19d.tar.xz (nineteenth session, call D): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of this build (the bf16 FFT pairs up to 8192 points in conv1d_sm80.cu), and
# 6134445's conv1d-fft bench (built in /tmp/old-target from a worktree) as old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x19d
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x19d
cp /tmp/old-target/release/conv1d-fft gpu-carry2/x19d/old__conv1d-fft
ls -la gpu-carry2/x19d
carry_pack x19d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x19d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
