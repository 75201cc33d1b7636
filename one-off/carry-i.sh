#!/usr/bin/env bash
# Builds gpu-carry2/i.tar.xz: gpu-conv1d's test binaries, the conv1d-fft bench bin and
# scripts/peers_fft.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin i
(cargo test -p gpu-conv1d --release --features cuda --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) |
  carry_collect i
for f in gpu-carry2/i/*gpu_conv1d*; do [ -e "$f" ] && mv "$f" "${f/gpu_conv1d/lib}"; done
cp target/release/conv1d-fft gpu-carry2/i/benches__conv1d-fft
cp scripts/peers_fft.py gpu-carry2/i/
carry_pack i
