#!/usr/bin/env bash
# Issue 12, call Q (one H100): the scan modules with the shuffle-ended lane fold (the totals pass
# of the two-pass lane scans): gpu-scan's GPU tests, the sanitizers over its lane tests, and every
# axis and segment scan of the shapes bench against the previous build.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/q.tar.xz; C=gpu-carry2/q
R="$OUT/lanes-q"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in shaped_gpu gpu properties host_pipeline half_gpu kernels; do
  timeout 200 $C/gpu-scan__$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked" -A4 "$R/logs/test-$b.log" | head -8
done
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool --report-api-errors no $C/gpu-scan__shaped_gpu lanes_sanitize_every_mapping --test-threads=1 > "$R/logs/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/logs/$tool.log" | tail -1) $(grep -E '^test result' "$R/logs/$tool.log")"
done
A="--scans-only --types f32,i32 --quick --no-conv"
timeout 120 $C/shapes-base $A --out "$R/base" > "$R/logs/base.log" 2>&1; echo "base rc=$?"
timeout 120 $C/benches__shapes $A --out "$R/new" > "$R/logs/new.log" 2>&1; echo "new rc=$?"
python3 - "$R" <<'PY'
import json, sys
R = sys.argv[1]
def load(v):
    return {(r["op"], r["dtype"], r["case"]): r for r in json.load(open(f"{R}/{v}/shapes.json"))["rows"]}
b, n = load("base"), load("new")
print("case | base | new | plan")
for k in n:
    f = lambda d: d.get(k, {}).get("copy_fraction", float("nan"))
    if abs(f(n) - f(b)) > 0.02 or not n[k]["correct"]:
        print(" ".join(k), f"| {f(b):.3f} | {f(n):.3f} |", n[k]["plan"], n[k]["correct"])
print("cases", len(n), "all correct", all(r["correct"] for r in n.values()))
PY
(cd "$OUT" && tar czf lanes-q.tgz lanes-q && rm -rf lanes-q)
