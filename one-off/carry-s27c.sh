#!/usr/bin/env bash
# Builds gpu-carry3/s27c.tar.xz (twenty-seventh session, call C): the conv1d-fft bench of main
# before this session (base: the last session's n3 build, main's kernels), of 20115fd (dit: the
# decimation-in-time register DFTs) and of 20115fd with the pairs' stores tested by lane 0's
# index (st), with base's and st's fft_gpu. The binaries were built into /tmp/s27 first.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s27c
cp /tmp/s27/base/benches__conv1d-fft gpu-carry2/s27c/base__conv1d-fft
cp /tmp/xb/n3/gpu-conv1d__fft_gpu gpu-carry2/s27c/base__fft_gpu
cp /tmp/s27/new/benches__conv1d-fft gpu-carry2/s27c/dit__conv1d-fft
cp /tmp/s27/st/benches__conv1d-fft gpu-carry2/s27c/st__conv1d-fft
cp /tmp/s27/st/gpu-conv1d__fft_gpu gpu-carry2/s27c/st__fft_gpu
ls -la gpu-carry2/s27c
carry_pack s27c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s27c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
