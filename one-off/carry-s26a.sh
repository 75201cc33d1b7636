#!/usr/bin/env bash
# Builds gpu-carry3/s26a.tar.xz (twenty-sixth session, call A): the conv1d-fft bench of main
# (413b79a, d), of main with fft-even-odd-unchecked-spans.patch (n3) and of n3 with every tile
# of 64 outputs or more rounded down to a multiple of 32 (n4), and n3's fft_gpu. The d and n3
# binaries were built into /tmp/xb before n4's kernels were; this packs them beside n4's.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s26a
cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null | carry_collect s26a
mv gpu-carry2/s26a/benches__conv1d-fft gpu-carry2/s26a/n4__conv1d-fft
cp /tmp/xb/d__conv1d-fft gpu-carry2/s26a/d__conv1d-fft
cp /tmp/xb/n3/benches__conv1d-fft gpu-carry2/s26a/n3__conv1d-fft
cp /tmp/xb/n3/gpu-conv1d__fft_gpu gpu-carry2/s26a/gpu-conv1d__fft_gpu
ls -la gpu-carry2/s26a
carry_pack s26a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s26a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
