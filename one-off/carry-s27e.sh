#!/usr/bin/env bash
# Builds gpu-carry3/s27e.tar.xz (twenty-seventh session, call E): the conv1d-fft bench of
# 680339c (main with this session's three FFT changes), built into /tmp/s27/final first.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s27e
cp /tmp/s27/final/benches__conv1d-fft gpu-carry2/s27e/final__conv1d-fft
carry_pack s27e
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s27e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
