#!/usr/bin/env bash
# Builds gpu-carry2/p.tar.xz: gpu-reduce's shaped GPU test and the shapes bench with the
# experiment's grid caps behind GPU_PRIMS_EXP_CAP_COLUMNS / _SEGMENTS, and the base shapes.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cuda-stub-env.sh
rm -rf gpu-carry2 && mkdir -p gpu-carry2/p
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        shutil.copy(m["executable"], "gpu-carry2/p/" + pkg + "__" + m["target"]["name"])
'
cp /tmp/exp/shapes-base gpu-carry2/p/shapes-base
strip gpu-carry2/p/*
(cd gpu-carry2 && tar cf - p | xz -T1 --lzma2=preset=6,dict=192MiB > p.tar.xz && rm -rf p)
ls -la gpu-carry2
