#!/usr/bin/env bash
# Builds gpu-carry2/i.tar.xz: gpu-conv1d's test binaries, the conv1d-fft bench bin and
# scripts/peers_fft.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/cuda-stub-env.sh
rm -rf gpu-carry2 && mkdir -p gpu-carry2/i
(cargo test -p gpu-conv1d --release --features cuda --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) |
python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        name = m["target"]["name"].replace("gpu_conv1d", "lib")
        shutil.copy(m["executable"], "gpu-carry2/i/" + pkg + "__" + name)
'
cp target/release/conv1d-fft gpu-carry2/i/benches__conv1d-fft
strip gpu-carry2/i/*
cp scripts/peers_fft.py gpu-carry2/i/
(cd gpu-carry2 && tar cf - i | xz -T1 --lzma2=preset=6,dict=192MiB > i.tar.xz && ls i && rm -rf i)
ls -la gpu-carry2
