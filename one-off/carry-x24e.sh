#!/usr/bin/env bash
# Builds gpu-carry3/x24e.tar.xz (twenty-fourth session, call E): the conv1d-fft bench and
# fft_gpu of this build (n3: the spans' finiteness checks dropped, the results' kept), beside the
# bench of call D's build (ae9da58, shipped), copied to /tmp/xb/d__conv1d-fft before the
# kernels were rebuilt.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x24e
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x24e
mv gpu-carry2/x24e/benches__conv1d-fft gpu-carry2/x24e/n3__conv1d-fft
cp /tmp/xb/d__conv1d-fft gpu-carry2/x24e/d__conv1d-fft
ls -la gpu-carry2/x24e
carry_pack x24e
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x24e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
