#!/usr/bin/env bash
# Builds gpu-carry3/x21a.tar.xz (twenty-first session, call A): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of this build (f32 16384-point even-and-odd spans: the pairs kernel for odd masks,
# conv1d_fft_eo16384_pairs_f32), and the build of main before it (/tmp/base-cf) as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x21a
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x21a
cp /tmp/base-cf gpu-carry2/x21a/base__conv1d-fft
ls -la gpu-carry2/x21a
carry_pack x21a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x21a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
