#!/usr/bin/env bash
# Builds gpu-carry2/dist.tar.xz: the gpu-dist tests (cuda, nccl), gpu-core's gpu test and the
# dist bench binary (nccl), stripped, one xz stream with a large dictionary (the binaries share
# their embedded kernels: 67 MB with xz -T8, 23 MB so).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin dist
(cargo test -p gpu-dist --release --features cuda,nccl --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-core --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features nccl --bin dist --message-format=json 2>/dev/null) |
  carry_collect dist
cp scripts/peers_dist.py gpu-carry2/dist/
carry_pack dist
