#!/usr/bin/env bash
# Builds gpu-carry2/s43c.tar.xz for one-off/h100-s43c.sh: every test binary of gpu-conv1d (its
# lib's unit tests too), release, features `cuda` and `fault-injection` (as the bundle), and the
# report, of this checkout.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s43c
cargo test -p gpu-conv1d --release --features cuda,fault-injection --lib --tests --no-run --message-format=json 2>/dev/null |
  carry_collect s43c
cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null |
  carry_collect s43c
ls gpu-carry2/s43c
carry_pack s43c
