#!/usr/bin/env bash
# Builds gpu-carry2/s47.tar.xz for one-off/h100-s47.sh: gpu-scan's test binaries that touch the
# flat scans (release, features `cuda`; fault_injection with `fault-injection`) and the report,
# of this checkout (s47-ws-scan, later s48-ws-float), beside the report of main before the
# warp-specialised kernel (94a63a4's, from s45.tar.xz in
# gpu-carry4/ or gpu-carry2/; gpu-carry2 is replaced).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
S45=gpu-carry4/s45.tar.xz; [ -f "$S45" ] || S45=gpu-carry2/s45.tar.xz
[ -f "$S45" ] || { echo "s45.tar.xz is missing (gpu-carry4/, gpu-carry2/)"; exit 1; }
rm -rf /tmp/s45-main && mkdir -p /tmp/s45-main && tar -C /tmp/s45-main -xJf "$S45" s45/benches__report
carry_begin s47
for t in warp_specialized_gpu gpu status_reuse_gpu prefetch_gpu tuning_gpu host_pipeline; do
  cargo test -p gpu-scan --release --features cuda --test "$t" --no-run --message-format=json 2>/dev/null |
    carry_collect s47
done
cargo test -p gpu-scan --release --features cuda --lib --no-run --message-format=json 2>/dev/null |
  carry_collect s47
cargo test -p gpu-scan --release --features cuda,fault-injection --test fault_injection --no-run \
  --message-format=json 2>/dev/null | carry_collect s47
cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null |
  carry_collect s47
cp /tmp/s45-main/s45/benches__report gpu-carry2/s47/report-main
ls -la gpu-carry2/s47
carry_pack s47
