#!/usr/bin/env bash
# Builds gpu-carry2/s9d.tar.xz (issue 12 session 9, call D): the host_pipeline tests of
# gpu-reduce and gpu-conv1d with argmin/argmax and the FFT path past 2^31 values.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s9d
(cargo test --release --features cuda -p gpu-reduce --test host_pipeline --no-run --message-format=json 2>/dev/null
 cargo test --release --features cuda -p gpu-conv1d --test host_pipeline --no-run --message-format=json 2>/dev/null) | carry_collect s9d
ls -la gpu-carry2/s9d
carry_pack s9d
