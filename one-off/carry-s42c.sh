#!/usr/bin/env bash
# Builds gpu-carry2/s42c.tar.xz for one-off/h100-s42c.sh: every test binary of gpu-conv1d (its
# lib's unit tests too), release, features `cuda` and `fault-injection` (as the bundle), of this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s42c
cargo test -p gpu-conv1d --release --features cuda,fault-injection --lib --tests --no-run --message-format=json 2>/dev/null |
  carry_collect s42c
ls gpu-carry2/s42c
carry_pack s42c
