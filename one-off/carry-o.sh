#!/usr/bin/env bash
# Builds gpu-carry2/o.tar.xz: gpu-reduce's GPU tests and the shapes bench (call O).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cuda-stub-env.sh
rm -rf gpu-carry2 && mkdir -p gpu-carry2/o
(cargo test -p gpu-reduce --release --features cuda --test shaped_gpu --test gpu --test properties --test host_pipeline --test half_gpu --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        shutil.copy(m["executable"], "gpu-carry2/o/" + pkg + "__" + m["target"]["name"])
'
cp /tmp/exp/shapes-base gpu-carry2/o/shapes-base
strip gpu-carry2/o/*
(cd gpu-carry2 && tar cf - o | xz -T1 --lzma2=preset=6,dict=192MiB > o.tar.xz && rm -rf o)
ls -la gpu-carry2
