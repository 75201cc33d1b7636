#!/usr/bin/env bash
# Issue 12 session 9, call B (one H100): the columns scan's packed look-back. Every axis and
# segment scan of the shapes bench, previous build then this one, alone on the GPU; the column
# cases again with half blocks for every tile count; gpu-scan's GPU tests and the sanitizers
# over its lane tests last.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s9b ] || tar -C gpu-carry2 -xJf gpu-carry2/s9b.tar.xz; C=gpu-carry2/s9b
R="$OUT/s9b"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
A="--scans-only --types f32,i32 --quick --no-conv"
timeout 150 $C/shapes-base $A --out "$R/base" > "$R/logs/base.log" 2>&1; echo "base rc=$?"
timeout 150 $C/benches__shapes $A --out "$R/new" > "$R/logs/new.log" 2>&1; echo "new rc=$?"
K="--cases 4194304x64,64x4194304,16384x16384,262144x1024"
GPU_PRIMS_COLUMN_SCAN_THREADS=128 timeout 100 $C/benches__shapes $A $K --out "$R/t128" > "$R/logs/t128.log" 2>&1; echo "t128 rc=$?"
GPU_PRIMS_COLUMN_SCAN_THREADS=256 timeout 100 $C/benches__shapes $A $K --out "$R/t256" > "$R/logs/t256.log" 2>&1; echo "t256 rc=$?"
python3 - "$R" <<'PY'
import json, sys, os
R = sys.argv[1]
def load(v):
    p = f"{R}/{v}/shapes.json"
    if not os.path.exists(p): return {}
    return {(r["op"], r["dtype"], r["case"]): r for r in json.load(open(p))["rows"]}
b, n, h, w = load("base"), load("new"), load("t128"), load("t256")
print("case | base | new | t128 | t256 | plan")
f = lambda d, k: d.get(k, {}).get("copy_fraction", float("nan"))
for k in n:
    print(" ".join(k), f"| {f(b,k):.3f} | {f(n,k):.3f} | {f(h,k):.3f} | {f(w,k):.3f} |", n[k]["plan"], n[k]["correct"])
print("cases", len(n), "all correct", all(r["correct"] for d in (n, h, w) for r in d.values()))
PY
export GPU_PRIMS_REQUIRE_GPU=1
for b in shaped_gpu gpu properties host_pipeline half_gpu kernels; do
  timeout 200 $C/gpu-scan__$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked" -A4 "$R/logs/test-$b.log" | head -8
done
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --report-api-errors no $C/gpu-scan__shaped_gpu lanes_sanitize_every_mapping --test-threads=1 > "$R/logs/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/logs/$tool.log" | tail -1) $(grep -E '^test result' "$R/logs/$tool.log")"
done
(cd "$OUT" && tar czf s9b.tgz s9b && rm -rf s9b)
