#!/usr/bin/env bash
# Issue 13 session 14, call G (one H100): the final warpgroup kernel (outputs staged in the
# span's regions, accumulators pinned around the wgmma group): gpu-conv1d's gpu, kernels and
# properties tests with GPU_PRIMS_REQUIRE_GPU=1, memcheck and racecheck over the warpgroup cross
# product, then alone on the GPU the report's 16-bit conv1d rows at 2^28.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/s14g ] || tar -C gpu-carry2 -xJf gpu-carry2/s14g.tar.xz; C=gpu-carry2/s14g
R="$OUT/s14g"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-conv1d__gpu gpu-conv1d__kernels gpu-conv1d__properties; do
  timeout 150 $C/$b > "$R/logs/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/$b.log")"
  grep -E "panicked" -A4 "$R/logs/$b.log" | head -8
done
for tool in memcheck racecheck synccheck; do
  timeout 60 compute-sanitizer --tool $tool --error-exitcode 9 $C/gpu-conv1d__gpu gpu_cross_warpgroup_f16 --exact > "$R/logs/san-$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/logs/san-$tool.log" | tr '\n' ' ')"
done
timeout 200 $C/benches__report --only core,conv1d --sizes 28 --types f16,bf16 --widths 63,95,127,255 \
  --reps 7 --cpu-reps 1 --out "$R/n28" 2>"$R/n28-progress.log" >"$R/n28.txt"
echo "report n28 rc=$?"
grep -E "^core +copy|^conv1d +(auto|tensor_core|warpgroup) " "$R/n28.txt" | cut -c1-120
grep -E "^report:" "$R/n28.txt"
rm -rf "$R/n28"/*.svg
