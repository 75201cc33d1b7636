#!/usr/bin/env bash
# Builds gpu-carry2/u.tar.xz (issue 24, calls U and V): the tuning tool, the report, the tuning
# tests and the flat GPU tests of gpu-scan, gpu-reduce and gpu-conv1d (with fft_gpu); with
# OLD_REPORT=path, the report of the previous build beside them as report-old.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin u
(for c in gpu-core gpu-scan gpu-reduce gpu-conv1d; do
   cargo test -p $c --release --features cuda --test tuning_gpu --no-run --message-format=json 2>/dev/null
 done
 cargo test -p gpu-scan --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-reduce --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-conv1d --release --features cuda --test gpu ${FFT_TEST:+--test fft_gpu} --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin tune --bin report --message-format=json 2>/dev/null) |
  carry_collect u
if [ -n "${OLD_REPORT:-}" ]; then cp "$OLD_REPORT" gpu-carry2/u/report-old; fi
ls -la gpu-carry2/u
carry_pack u
