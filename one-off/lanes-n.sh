#!/usr/bin/env bash
# Issue 12, call N (one H100): the lane reduction without a block barrier where a lane lies in
# one warp (rows of 1024, segments of 1-2000), against the previous kernels in the same call;
# grid capped at 2 and 4 resident waves; 64 items per thread.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/x.tar.xz; C=gpu-carry2/x
R="$OUT/lanes-n"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
A="--reductions-only --types f32,i32 --quick --no-conv"
for v in base new; do
  timeout 200 $C/shapes-$v $A --out "$R/$v" > "$R/$v.log" 2>&1; echo "$v rc=$?"
done
K="--cases 262144x1024,segments"
GPU_PRIMS_LANE_GRID_WAVES=2 timeout 100 $C/shapes-new $A $K --out "$R/waves2" > "$R/waves2.log" 2>&1; echo "waves2 rc=$?"
GPU_PRIMS_LANE_GRID_WAVES=4 timeout 100 $C/shapes-new $A $K --out "$R/waves4" > "$R/waves4.log" 2>&1; echo "waves4 rc=$?"
GPU_PRIMS_REDUCE_LANE_ITEMS=64 timeout 100 $C/shapes-new $A $K --out "$R/items64" > "$R/items64.log" 2>&1; echo "items64 rc=$?"
timeout 100 $C/shapes-base $A $K --out "$R/base2" > "$R/base2.log" 2>&1; echo "base2 rc=$?"
for v in base new waves2 waves4 items64 base2; do
  echo "== $v"; grep -E "262144x1024 C axis 1|262144x1024 F axis 0|segments 1-2000|segments 16x|^# |copy" "$R/$v/shapes.md" | cut -c1-150 | head -14
done
grep -c " ok |" "$R/new/shapes.md"; grep -v " ok |" "$R/new/shapes.md" | grep "^| [a-z]" | head
