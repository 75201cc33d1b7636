#!/usr/bin/env bash
# Builds gpu-carry3/s29h.tar.xz (twenty-ninth session, call H): the shapes bench of this tree.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s29h
cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json \
  2>/dev/null | carry_collect s29h
carry_pack s29h
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s29h.tar.xz gpu-carry3/ && rm -rf gpu-carry2
