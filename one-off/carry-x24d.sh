#!/usr/bin/env bash
# Builds gpu-carry3/x24d.tar.xz (twenty-fourth session, call D): every gpu-conv1d test binary and
# the conv1d-fft bench of this build (call A's n2 kernels, the sizes and crossings refitted from
# calls B and C).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x24d
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x24d
ls -la gpu-carry2/x24d
carry_pack x24d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x24d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
