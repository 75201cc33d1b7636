#!/usr/bin/env bash
# Builds gpu-carry3/s27a.tar.xz (twenty-seventh session, call A): the conv1d-fft bench of main
# (b9128c4, its kernels those of 732b371: `base`) and of main with the register DFTs in
# decimation in time (`new`), new's fft_gpu, and the four test binaries of the bundle the last
# session's calls did not reach (gpu-scan kernels, scan_builder, status_reuse_gpu; gpu-sync's
# unit tests), built at b9128c4 (their kernels unchanged since). The binaries were built into
# /tmp/s27 first (base: the last session's n3 build, the same kernels as main).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s27a
cp /tmp/s27/base/benches__conv1d-fft gpu-carry2/s27a/base__conv1d-fft
cp /tmp/s27/new/benches__conv1d-fft gpu-carry2/s27a/new__conv1d-fft
cp /tmp/s27/new/gpu-conv1d__fft_gpu /tmp/s27/gpu-scan__* /tmp/s27/gpu-sync__gpu_sync gpu-carry2/s27a/
ls -la gpu-carry2/s27a
carry_pack s27a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s27a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
