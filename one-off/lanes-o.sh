#!/usr/bin/env bash
# Issue 12, call O (one H100): the lane reduction without a barrier where a lane lies in one
# warp and its grid capped at four resident waves: gpu-reduce's GPU tests, the sanitizers over
# the lane kernels, every reduction case of the shapes bench against the previous build, and
# PyTorch on rows of 1024, each step alone on the GPU.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/o.tar.xz; C=gpu-carry2/o
R="$OUT/lanes-o"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in shaped_gpu gpu properties host_pipeline half_gpu; do
  timeout 240 $C/gpu-reduce__$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked" -A4 "$R/logs/test-$b.log" | head -8
done
for tool in memcheck racecheck synccheck; do
  timeout 200 compute-sanitizer --tool $tool $C/gpu-reduce__shaped_gpu lanes_sanitize_every_mapping more_tiles_than_the_grid --test-threads=1 > "$R/logs/$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/logs/$tool.log" | tail -1) $(grep -E '^test result' "$R/logs/$tool.log")"
done
A="--reductions-only --types f32,i32 --quick --no-conv"
timeout 150 $C/shapes-base $A --out "$R/base" > "$R/logs/base.log" 2>&1; echo "base rc=$?"
timeout 150 $C/gpu-prims-benches__shapes $A --out "$R/new" > "$R/logs/new.log" 2>&1; echo "new rc=$?"
timeout 100 python3 one-off/torch_rows.py > "$R/torch-rows.md" 2> "$R/logs/torch.log"; echo "torch rc=$?"; cat "$R/torch-rows.md"
python3 - "$R" <<'PY'
import json, sys
R = sys.argv[1]
def load(v):
    d = json.load(open(f"{R}/{v}/shapes.json"))
    rows = d["rows"]
    return {(r["op"], r["dtype"], r["case"]): r for r in rows}
b, n = load("base"), load("new")
for k in n:
    x, y = b.get(k, {}).get("copy_fraction"), n[k].get("copy_fraction")
    if x is None or y is None: continue
    if abs(y - x) > 0.02 or y < 0.95: print(k, f"{x:.3f} -> {y:.3f}", n[k]["plan"], n[k]["correct"])
PY
grep -c "| ok |" "$R/new/shapes.md"; grep "^| [a-z]" "$R/new/shapes.md" | grep -vc "| ok |"
(cd "$OUT" && tar czf lanes-o.tgz lanes-o && rm -rf lanes-o)
