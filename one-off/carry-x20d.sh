#!/usr/bin/env bash
# Builds gpu-carry3/x20d.tar.xz (twentieth session, call D): gpu-conv1d's fft_gpu test and the
# conv1d-fft bench of this build (the f32 16384-point even-and-odd spans store their outputs in
# pairs), and call A's build of the bench (/tmp/base-cf: scalar I/O there) as base__conv1d-fft.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin x20d
(cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x20d
cp /tmp/base-cf gpu-carry2/x20d/base__conv1d-fft
ls -la gpu-carry2/x20d
carry_pack x20d
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x20d.tar.xz gpu-carry3/ && rm -rf gpu-carry2
