#!/usr/bin/env bash
# Builds gpu-carry3/s28a.tar.xz (twenty-eighth session, call A): the conv1d-fft bench of main
# (base, 4f0f36a's kernels), of the spectrum loaded through L2 only (l2spec) and of the spectrum
# and spans both (l2both). The binaries were built into /tmp/s28 first.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s28a
cp /tmp/s27/final/benches__conv1d-fft gpu-carry2/s28a/base__conv1d-fft
cp /tmp/s28/l2spec/benches__conv1d-fft gpu-carry2/s28a/l2spec__conv1d-fft
cp /tmp/s28/l2both/benches__conv1d-fft gpu-carry2/s28a/l2both__conv1d-fft
carry_pack s28a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s28a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
