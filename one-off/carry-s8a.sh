#!/usr/bin/env bash
# Builds gpu-carry2/a8.tar.xz for one-off/h200-s8a.sh: gpu-reduce's shaped GPU tests (the review
# commit 43ea6a4 and the host-counts plan dd02ccb, neither run on a GPU yet).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin a8
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null) |
  carry_collect a8
carry_pack a8
