#!/usr/bin/env bash
# Builds gpu-carry3/x21c.tar.xz (twenty-first session, call C): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of an experimental build (f16 and bf16 even-and-odd spans of 16384 and 32768
# points always run pairs kernels, conv1d_fft_eo<N>_pairs_<t>), and 5c11af7's bench (/tmp/base-cf)
# as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x21c
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x21c
cp /tmp/base-cf gpu-carry2/x21c/base__conv1d-fft
ls -la gpu-carry2/x21c
carry_pack x21c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x21c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
