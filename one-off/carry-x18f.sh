#!/usr/bin/env bash
# Builds gpu-carry3/x18f.tar.xz (eighteenth session, call F): gpu-conv1d's fft_gpu test binary
# and the conv1d-fft bench of this build (8-byte pair loads and stores in the f32 even-and-odd
# spans), and call D's bench (the radix-32 build, unpacked to /tmp/x18d-ex first) as
# old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x18f
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x18f
cp /tmp/x18d-ex/x18d/benches__conv1d-fft gpu-carry2/x18f/old__conv1d-fft
ls -la gpu-carry2/x18f
carry_pack x18f
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x18f.tar.xz gpu-carry3/ && rm -rf gpu-carry2
