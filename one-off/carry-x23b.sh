#!/usr/bin/env bash
# Builds gpu-carry3/x23b.tar.xz (twenty-third session, call B): every gpu-conv1d test binary and
# the conv1d-fft bench of this build (f16's own size table: 16384 span points to w = 5650).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x23b
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x23b
ls -la gpu-carry2/x23b
carry_pack x23b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x23b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
