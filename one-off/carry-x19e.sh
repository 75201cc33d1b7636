#!/usr/bin/env bash
# Builds gpu-carry3/x19e.tar.xz (nineteenth session, call E): the first-call bin of this build.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x19e
cargo build --release -p gpu-prims-benches --features cuda --bin first-call --message-format=json 2>/dev/null | carry_collect x19e
ls -la gpu-carry2/x19e
carry_pack x19e
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x19e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
