#!/usr/bin/env bash
# Builds gpu-carry3/x21d.tar.xz (twenty-first session, call D): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of a build with f16 pairs in both even-and-odd span sizes (shipped) and an experiment,
# bf16 pairs kernels loading one 32-bit word (always taken), and 5c11af7 (/tmp/base-cf)
# as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x21d
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x21d
cp /tmp/base-cf gpu-carry2/x21d/base__conv1d-fft
ls -la gpu-carry2/x21d
carry_pack x21d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x21d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
