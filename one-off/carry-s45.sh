#!/usr/bin/env bash
# Builds gpu-carry2/s45.tar.xz for one-off/h100-s45.sh: gpu-conv1d's `gpu` test binary (release,
# features `cuda`) and the report, of this checkout, beside fd370b1's report (taken from
# gpu-carry3/close.tar.xz, one-off/carry-h100-close.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
[ -f gpu-carry3/close.tar.xz ] || { echo "gpu-carry3/close.tar.xz is missing"; exit 1; }
carry_begin s45
cargo test -p gpu-conv1d --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null |
  carry_collect s45
cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null |
  carry_collect s45
tar -C /tmp -xJf gpu-carry3/close.tar.xz close/report-fd370b1
mv /tmp/close/report-fd370b1 gpu-carry2/s45/ && rmdir /tmp/close
ls gpu-carry2/s45
carry_pack s45
