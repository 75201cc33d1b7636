#!/usr/bin/env bash
# Builds gpu-carry2/q.tar.xz: gpu-scan's GPU tests and the shapes bench (scan modules rebuilt
# with the shuffle-ended lane fold of the totals pass), and the previous shapes build.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cuda-stub-env.sh
rm -rf gpu-carry2 && mkdir -p gpu-carry2/q
(cargo test -p gpu-scan --release --features cuda --test shaped_gpu --test gpu --test properties --test host_pipeline --test half_gpu --test kernels --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --message-format=json 2>/dev/null) |
python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        shutil.copy(m["executable"], "gpu-carry2/q/" + pkg + "__" + m["target"]["name"])
'
cp /tmp/exp/shapes-base gpu-carry2/q/shapes-base
strip gpu-carry2/q/*
(cd gpu-carry2 && tar cf - q | xz -T1 --lzma2=preset=6,dict=192MiB > q.tar.xz && rm -rf q)
ls -la gpu-carry2
