#!/usr/bin/env bash
# Builds gpu-carry3/x21e.tar.xz (twenty-first session, call E): gpu-conv1d's fft_gpu and gpu tests
# and the conv1d-fft bench of an experimental build (53d9627 with the f64 16384-point
# even-and-odd spans moving a point's two values as one 16-byte pair), and 5c11af7's bench
# (/tmp/base-cf; its f64 kernels are 53d9627's) as base__conv1d-fft. Apply
# one-off/fft-eo16384-f64-pairs.patch and rebuild the PTX (`PTX_ONLY=conv1d scripts/ptx.sh`) first.
# Not run: five starts in a row were refused (session 21).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x21e
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x21e
cp /tmp/base-cf gpu-carry2/x21e/base__conv1d-fft
ls -la gpu-carry2/x21e
carry_pack x21e
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x21e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
