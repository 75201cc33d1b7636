#!/usr/bin/env bash
# Builds gpu-carry2/f.tar.xz (issue 24 session 4, call F on nvidia-h200): the report, the FFT
# width sweep (conv1d-fft) and the shapes benchmark, for the H200's rows of the later issues.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin f
cargo build --release -p gpu-prims-benches --features cuda --bin report --bin conv1d-fft --bin shapes --message-format=json 2>/dev/null |
  carry_collect f
carry_pack f
