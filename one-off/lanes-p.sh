#!/usr/bin/env bash
# Issue 12, call P (one H100): every reduction case of the shapes bench, the previous build
# against this one (lane grid capped at four waves), and this one with the same cap on the
# vector-columns kernel and on the segment lanes (experiment knobs); the shaped tests with both
# caps on; memcheck without the host-pointer probe's API errors.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/p.tar.xz; C=gpu-carry2/p
R="$OUT/lanes-p"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
A="--reductions-only --types f32,i32 --quick --no-conv"
timeout 100 $C/shapes-base $A --out "$R/base" > "$R/logs/base.log" 2>&1; echo "base rc=$?"
timeout 100 $C/benches__shapes $A --out "$R/new" > "$R/logs/new.log" 2>&1; echo "new rc=$?"
GPU_PRIMS_EXP_CAP_COLUMNS=1 GPU_PRIMS_EXP_CAP_SEGMENTS=1 timeout 100 $C/benches__shapes $A --out "$R/caps" > "$R/logs/caps.log" 2>&1; echo "caps rc=$?"
timeout 100 $C/shapes-base $A --out "$R/base2" > "$R/logs/base2.log" 2>&1; echo "base2 rc=$?"
python3 - "$R" <<'PY'
import json, sys
R = sys.argv[1]
def load(v):
    return {(r["op"], r["dtype"], r["case"]): r for r in json.load(open(f"{R}/{v}/shapes.json"))["rows"]}
b, b2, n, c = load("base"), load("base2"), load("new"), load("caps")
print("case | base | base2 | new | caps | plan")
for k in n:
    f = lambda d: d.get(k, {}).get("copy_fraction", float("nan"))
    if min(f(n), f(c)) < 0.95 or abs(f(n) - f(b)) > 0.02 or abs(f(c) - f(n)) > 0.02 or not (n[k]["correct"] and c[k]["correct"]):
        print(" ".join(k), f"| {f(b):.3f} | {f(b2):.3f} | {f(n):.3f} | {f(c):.3f} |", n[k]["plan"], n[k]["correct"], c[k]["correct"])
PY
export GPU_PRIMS_REQUIRE_GPU=1
GPU_PRIMS_EXP_CAP_COLUMNS=1 GPU_PRIMS_EXP_CAP_SEGMENTS=1 timeout 200 $C/gpu-reduce__shaped_gpu > "$R/logs/test-caps.log" 2>&1; echo "shaped_gpu (caps) rc=$? $(grep -E '^test result' "$R/logs/test-caps.log")"
timeout 200 compute-sanitizer --tool memcheck --report-api-errors no $C/gpu-reduce__shaped_gpu lanes_sanitize_every_mapping more_tiles_than_the_grid --test-threads=1 > "$R/logs/memcheck.log" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/logs/memcheck.log" | tail -1) $(grep -E '^test result' "$R/logs/memcheck.log")"
(cd "$OUT" && tar czf lanes-p.tgz lanes-p && rm -rf lanes-p)
