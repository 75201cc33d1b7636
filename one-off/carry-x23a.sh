#!/usr/bin/env bash
# Builds gpu-carry3/x23a.tar.xz (twenty-third session, call A) from binaries built beforehand
# into /tmp/xb: base__conv1d-fft and base__first-call (e07ec70's kernels), p1__conv1d-fft and
# p2__conv1d-fft (the FFT blocks prefetching the span of the transform one / two waves on into
# L2, GP_CONV1D_FFT_PREFETCH_WAVES = 1 / 2), p1__fft_gpu (the test binary of the first).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x23a
cp /tmp/xb/* gpu-carry2/x23a/
ls -la gpu-carry2/x23a
carry_pack x23a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x23a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
