#!/usr/bin/env bash
# Builds gpu-carry3/x19c.tar.xz (nineteenth session, call C): gpu-conv1d's test binaries with the
# fault-injection feature, the first-call bin and the conv1d-fft bench of this build (the bf16
# FFT kernels in conv1d_sm80.cu), and 6134445's conv1d-fft bench (built in /tmp/old-target from a
# worktree) as old__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x19c
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin first-call --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x19c
cp /tmp/old-target/release/conv1d-fft gpu-carry2/x19c/old__conv1d-fft
ls -la gpu-carry2/x19c
carry_pack x19c
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x19c.tar.xz gpu-carry3/ && rm -rf gpu-carry2
