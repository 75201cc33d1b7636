#!/usr/bin/env bash
# Builds gpu-carry3/x24a.tar.xz (twenty-fourth session, call A): every gpu-conv1d test binary and
# the conv1d-fft bench of this build (the FFT blocks' index arithmetic: one shared-memory address
# per thread and pass with immediate offsets, 32-bit output bounds, branch-free finiteness
# checks, the twiddle row loaded once per pass), beside the bench of e6a5553 (base), built before
# the kernels were rebuilt and copied to /tmp/xb/base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x24a
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x24a
mv gpu-carry2/x24a/benches__conv1d-fft gpu-carry2/x24a/n1__conv1d-fft
cp /tmp/xb/base__conv1d-fft gpu-carry2/x24a/base__conv1d-fft
ls -la gpu-carry2/x24a
carry_pack x24a
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x24a.tar.xz gpu-carry3/ && rm -rf gpu-carry2
