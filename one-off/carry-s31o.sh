#!/usr/bin/env bash
# Builds gpu-carry3/s31o.tar.xz (thirty-first session): main's shapes binary (18c8eac's kernels),
# the baseline the apart lane widths are timed against.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s31o
cargo build --release -p gpu-prims-benches --features cuda --bin shapes \
  --message-format=json 2>/dev/null | carry_collect s31o
carry_pack s31o
mkdir -p gpu-carry3 && mv gpu-carry2/s31o.tar.xz gpu-carry3/ && rm -rf gpu-carry2
