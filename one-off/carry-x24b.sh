#!/usr/bin/env bash
# Builds gpu-carry3/x24b.tar.xz (twenty-fourth session, call B): every gpu-conv1d test binary and
# the conv1d-fft bench of this build (call A's n2: the FFT blocks' lean index arithmetic, the
# lean checks in the 8192-point pairs).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x24b
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x24b
ls -la gpu-carry2/x24b
carry_pack x24b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x24b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
