#!/usr/bin/env bash
# Builds the carries of issue 14's last calls this session: gpu-carry2/f1.tar.xz (every test
# binary of gpu-scan, gpu-core, gpu-sync and the benches package) and f2.tar.xz (gpu-reduce,
# gpu-conv1d, gpu-dist), features cuda, fault-injection, gpu-dist/nccl, release, as
# carry-d.sh; and f3.tar.xz, the report binary (features cuda).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin f
cargo test --workspace --release --features cuda,fault-injection,gpu-dist/nccl --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test"):
        print(l, end="")' |
  carry_collect f
mkdir -p gpu-carry2/f1 gpu-carry2/f2 gpu-carry2/f3
for b in gpu-carry2/f/*; do
  case $(basename $b) in
    gpu-scan__*|gpu-core__*|gpu-sync__*|benches__*) mv $b gpu-carry2/f1/ ;;
    *) mv $b gpu-carry2/f2/ ;;
  esac
done
rmdir gpu-carry2/f
cargo build --release --features cuda -p gpu-prims-benches --bin report --message-format=json 2>/dev/null | carry_collect f3
ls gpu-carry2/f1 gpu-carry2/f2 gpu-carry2/f3 | wc -l
carry_pack f1; carry_pack f2; carry_pack f3
