#!/usr/bin/env bash
# Builds gpu-carry3/s28b.tar.xz (twenty-eighth session, call B): the conv1d-fft bench of main
# (base, 4f0f36a's kernels) and of the bf16 FFT results rounded without the NaN test (bf), with
# bf's fft_gpu. The binaries were built into /tmp/s28 first.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s28b
cp /tmp/s28/base/benches__conv1d-fft gpu-carry2/s28b/base__conv1d-fft
cp /tmp/s28/bf/benches__conv1d-fft gpu-carry2/s28b/bf__conv1d-fft
cp /tmp/s28/bf/gpu-conv1d__fft_gpu gpu-carry2/s28b/bf__fft_gpu
carry_pack s28b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s28b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
