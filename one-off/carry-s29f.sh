#!/usr/bin/env bash
# Builds gpu-carry3/s29f.tar.xz (twenty-ninth session, call F): bin tune with the
# scan.column_staged_from sweep (`--only columns`).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s29f
cargo build --release -p gpu-prims-benches --features cuda --bin tune --message-format=json \
  2>/dev/null | carry_collect s29f
carry_pack s29f
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s29f.tar.xz gpu-carry3/ && rm -rf gpu-carry2
