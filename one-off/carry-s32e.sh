#!/usr/bin/env bash
# Builds gpu-carry3/s32e.tar.xz (thirty-second session, call E): gpu-reduce's shaped_gpu with
# lanes_sanitize_every_mapping reaching the changed columns kernels (i32 xor, f16 sum and max).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s32e
cargo test --release --no-run --features cuda -p gpu-reduce --test shaped_gpu \
  --message-format=json 2>/dev/null | carry_collect s32e
carry_pack s32e
mkdir -p gpu-carry3 && mv gpu-carry2/s32e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
