#!/usr/bin/env bash
# Shared by the one-off carry-*.sh builders: source it from the repository root.
#   carry_begin NAME         fresh gpu-carry2/NAME/ (the stub libcuda on the link path)
#   carry_add NAME           the same, keeping the other carries in gpu-carry2/
#   ... cargo --message-format=json ... | carry_collect NAME
#                            copies each built executable as <package>__<target>
#   carry_pack NAME          strips them and packs gpu-carry2/NAME.tar.xz: one xz stream with a
#                            large dictionary (the binaries share their embedded kernels)
set -euo pipefail
source scripts/cuda-stub-env.sh

carry_begin() { rm -rf gpu-carry2 && mkdir -p "gpu-carry2/$1"; }
carry_add() { rm -rf "gpu-carry2/$1" "gpu-carry2/$1.tar.xz" && mkdir -p "gpu-carry2/$1"; }

carry_collect() {
  python3 -c '
import json, sys, shutil
for l in sys.stdin:
    try: m = json.loads(l)
    except ValueError: continue
    if m.get("reason") == "compiler-artifact" and m.get("executable"):
        pkg = m["package_id"].split("#")[0].split("/")[-1]
        shutil.copy(m["executable"], "gpu-carry2/" + sys.argv[1] + "/" + pkg + "__" + m["target"]["name"])
' "$1"
}

carry_pack() {
  strip "gpu-carry2/$1"/* 2>/dev/null || true
  (cd gpu-carry2 && tar cf - "$1" | xz -T1 --lzma2=preset=6,dict=192MiB > "$1.tar.xz" && rm -rf "$1")
  ls -la gpu-carry2
}
