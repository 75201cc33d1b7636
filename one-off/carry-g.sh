#!/usr/bin/env bash
# Builds gpu-carry2/g.tar.xz: gpu-conv1d's fault-injection and gpu tests, the first-call bin,
# gpu-dist's gpu test.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cuda-stub-env.sh
rm -rf gpu-carry2 && mkdir -p gpu-carry2/g
(cargo test -p gpu-conv1d --release --features cuda,fault-injection --test fault_injection --test gpu --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-dist --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin first-call --message-format=json 2>/dev/null) |
python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        shutil.copy(m["executable"], "gpu-carry2/g/" + pkg + "__" + m["target"]["name"])
'
strip gpu-carry2/g/*
(cd gpu-carry2 && tar cf - g | xz -T1 --lzma2=preset=6,dict=192MiB > g.tar.xz && rm -rf g)
ls -la gpu-carry2
