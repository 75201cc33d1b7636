#!/usr/bin/env bash
# Builds gpu-carry2/d.tar.xz (issue 14, calls D1 and D2): every test binary of the workspace
# (features cuda, fault-injection, gpu-dist/nccl), as gpu-bundle.sh's tests, without the
# benches and bins (the carry shares the device tool's 64 MiB with the tracked tree).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin d
cargo test --workspace --release --features cuda,fault-injection,gpu-dist/nccl --no-run --message-format=json 2>/dev/null |
  carry_collect d
ls gpu-carry2/d | wc -l
carry_pack d
