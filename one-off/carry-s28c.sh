#!/usr/bin/env bash
# Builds gpu-carry3/s28c.tar.xz (twenty-eighth session, call C): call B's bf conv1d-fft bench.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s28c
cp /tmp/s28/bf/benches__conv1d-fft gpu-carry2/s28c/bf__conv1d-fft
carry_pack s28c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s28c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
