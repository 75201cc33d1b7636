#!/usr/bin/env bash
# Builds gpu-carry2/s9c.tar.xz (issue 12 session 9, call C): gpu-scan's GPU tests and the shapes
# bench with the columns scan's long spans of 16 vector rows a thread, two blocks per SM, and the previous shapes
# build (/tmp/exp/shapes-base) for the same-call comparison.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s9c
(cargo test -p gpu-scan --release --features cuda --test shaped_gpu --test gpu --test properties --test host_pipeline --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
  carry_collect s9c
cp /tmp/exp/shapes-base gpu-carry2/s9c/shapes-base
ls -la gpu-carry2/s9c
carry_pack s9c
