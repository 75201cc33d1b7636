#!/usr/bin/env bash
# Builds gpu-carry3/x22d.tar.xz (twenty-second session, call D): every gpu-conv1d test binary
# and the conv1d-fft bench of this build (spans padded to their outputs' alignment, fft_pad), and
# call A's bench as base__conv1d-fft (its kernels are 81e2000's; only `Auto`'s size table
# differs, and call D times explicit sizes). Extract it first:
#   tar -C /tmp/x22abin -xJf gpu-carry3/x22a.tar.xz x22a/benches__conv1d-fft
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x22d
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x22d
cp /tmp/x22abin/x22a/benches__conv1d-fft gpu-carry2/x22d/base__conv1d-fft
ls -la gpu-carry2/x22d
carry_pack x22d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x22d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
