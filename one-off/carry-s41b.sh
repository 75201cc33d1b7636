#!/usr/bin/env bash
# Builds gpu-carry2/s41b.tar.xz for one-off/h100-s41b.sh: gpu-conv1d's fft_gpu and fft_parts_gpu
# tests and the conv1d-fft benchmark, with the parts' crossings of the forty-first session.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s41b
(cargo test -p gpu-conv1d --release --features cuda --test fft_gpu --test fft_parts_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) |
  carry_collect s41b
carry_pack s41b
