#!/usr/bin/env bash
# Builds gpu-carry2/d.tar.xz (issue 14, calls D1 and D2): every test binary of the workspace
# (features cuda, fault-injection, gpu-dist/nccl), as gpu-bundle.sh's tests, without the
# benches and bins (the carry shares the device tool's 64 MiB with the tracked tree).
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin d
# Test executables only: `cargo test --no-run` also reports the [[bin]]s the benches package's
# tests depend on (report, tune, dist, ...), which are programs, not tests (call D1 ran them).
cargo test --workspace --release --features cuda,fault-injection,gpu-dist/nccl --no-run --message-format=json 2>/dev/null |
  python3 -c '
import json, sys
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("profile", {}).get("test"):
        print(l, end="")' |
  carry_collect d
ls gpu-carry2/d | wc -l
carry_pack d
