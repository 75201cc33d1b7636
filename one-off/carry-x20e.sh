#!/usr/bin/env bash
# Builds gpu-carry3/x20e.tar.xz (twentieth session, call E): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of this build (the f32 16384-point even-and-odd spans store their outputs in
# pairs where tiles have an even length), and call A's build of the bench (/tmp/base-cf: scalar I/O there) as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x20e
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x20e
cp /tmp/base-cf gpu-carry2/x20e/base__conv1d-fft
ls -la gpu-carry2/x20e
carry_pack x20e
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x20e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
