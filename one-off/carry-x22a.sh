#!/usr/bin/env bash
# Builds gpu-carry3/x22a.tar.xz (twenty-second session, call A): gpu-conv1d's fft_gpu, gpu,
# host_pipeline, axis_gpu and tuning_gpu tests and the conv1d-fft bench of an experimental
# build (even tiles from 16384 span points, the f32 16384-point pairs kernel for every mask to
# w = 6143, and one-off/fft-eo16384-f64-pairs.patch), with 4117e4f's bench (/tmp/base-main-cf)
# as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x22a
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --test gpu --test host_pipeline \
   --test axis_gpu --test tuning_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x22a
cp /tmp/base-main-cf gpu-carry2/x22a/base__conv1d-fft
ls -la gpu-carry2/x22a
carry_pack x22a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x22a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
