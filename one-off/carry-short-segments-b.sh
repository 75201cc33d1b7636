#!/usr/bin/env bash
# Builds gpu-carry2/ssb.tar.xz for one-off/h200-short-segments-b.sh: gpu-reduce's shaped_gpu.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin ssb
cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null |
  carry_collect ssb
carry_pack ssb
