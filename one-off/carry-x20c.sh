#!/usr/bin/env bash
# Builds gpu-carry3/x20c.tar.xz (twentieth session, call C): gpu-conv1d's fft_gpu, gpu and
# tuning_gpu tests and the conv1d-fft bench of this build (every bf16 FFT kernel from the sm_80
# module), and call A's build of the bench (/tmp/base-cf: the bf16 16384-point pairs and
# even-and-odd spans from compute_70) as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x20c
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --test gpu --test tuning_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x20c
cp /tmp/base-cf gpu-carry2/x20c/base__conv1d-fft
ls -la gpu-carry2/x20c
carry_pack x20c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x20c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
