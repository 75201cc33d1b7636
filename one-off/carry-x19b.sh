#!/usr/bin/env bash
# Builds gpu-carry3/x19b.tar.xz (nineteenth session, call B): gpu-conv1d's test binaries with
# the fault-injection feature (the 16-thread, out-of-memory and fault-injection tests over the
# FFT paths and cuFFT) and the first-call bin.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x19b
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin first-call --message-format=json 2>/dev/null) | carry_collect x19b
ls -la gpu-carry2/x19b
carry_pack x19b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x19b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
