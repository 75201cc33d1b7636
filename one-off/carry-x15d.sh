#!/usr/bin/env bash
# Builds gpu-carry3/x15d.tar.xz (fifteenth session, call D): gpu-conv1d's fft_gpu test binary.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x15d
cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null | carry_collect x15d
carry_pack x15d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x15d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
