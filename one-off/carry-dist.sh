#!/usr/bin/env bash
# Builds gpu-carry2/dist.tar.xz: the gpu-dist tests (cuda, nccl), gpu-core's gpu test and the
# dist bench binary (nccl), stripped, one xz stream with a large dictionary (the binaries share
# their embedded kernels: 67 MB with xz -T8, 23 MB so).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cuda-stub-env.sh
rm -rf gpu-carry2 && mkdir -p gpu-carry2/dist
(cargo test -p gpu-dist --release --features cuda,nccl --no-run --message-format=json 2>/dev/null
 cargo test -p gpu-core --release --features cuda --test gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features nccl --bin dist --message-format=json 2>/dev/null) |
python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        shutil.copy(m["executable"], "gpu-carry2/dist/" + pkg + "__" + m["target"]["name"])
'
strip gpu-carry2/dist/*
cp scripts/peers_dist.py gpu-carry2/dist/
(cd gpu-carry2 && tar cf - dist | xz -T1 --lzma2=preset=6,dict=192MiB > dist.tar.xz && rm -rf dist)
ls -la gpu-carry2
