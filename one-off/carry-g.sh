#!/usr/bin/env bash
# Builds gpu-carry2/g.tar.xz: gpu-conv1d's fault-injection and gpu tests, the first-call bin,
# gpu-dist's gpu test.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin g
(cargo test -p gpu-conv1d --release --features cuda,fault-injection --test fault_injection --test gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-dist --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin first-call --message-format=json 2>/dev/null) |
  carry_collect g
carry_pack g
