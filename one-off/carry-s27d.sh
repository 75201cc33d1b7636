#!/usr/bin/env bash
# Builds gpu-carry3/s27d.tar.xz (twenty-seventh session, call D): the conv1d-fft bench of
# 68e9a2a (st) and of 68e9a2a with the even-and-odd spans' results checked by lane 0's index and
# the poisoned sum (fin), and fin's fft_gpu. Built into /tmp/s27 first.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s27d
cp /tmp/s27/st/benches__conv1d-fft gpu-carry2/s27d/st__conv1d-fft
cp /tmp/s27/fin/benches__conv1d-fft gpu-carry2/s27d/fin__conv1d-fft
cp /tmp/s27/fin/gpu-conv1d__fft_gpu gpu-carry2/s27d/fin__fft_gpu
ls -la gpu-carry2/s27d
carry_pack s27d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s27d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
