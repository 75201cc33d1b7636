#!/usr/bin/env bash
# Issue 14, call A (one H100): the host-pipeline, shaped and fault-injection tests of the
# changed crates with GPU_PRIMS_REQUIRE_GPU=1, then compute-sanitizer over the outer-axis parts
# (memcheck, racecheck, synccheck) and the vector-columns tests (memcheck).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/a ] || tar -C gpu-carry2 -xJf gpu-carry2/a.tar.xz; C=gpu-carry2/a
R="$OUT/h100-a"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-scan__host_pipeline gpu-reduce__host_pipeline gpu-conv1d__host_pipeline \
         gpu-scan__shaped_gpu gpu-reduce__shaped_gpu gpu-conv1d__axis_gpu gpu-scan__gpu \
         gpu-scan__fault_injection gpu-reduce__fault_injection gpu-core__gpu_core; do
  timeout ${T:-240} $C/$b > "$R/logs/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/logs/test-$b.log")"
  grep -E "panicked|FAILED|failures:" -A6 "$R/logs/test-$b.log" | head -24
done
S=compute-sanitizer
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 200 $S --tool $tool $extra $C/gpu-scan__host_pipeline outer_axis_parts --test-threads=1 > "$R/logs/san-$tool-parts.log" 2>&1
  echo "$tool parts rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/logs/san-$tool-parts.log" | tr '\n' ' ')"
done
timeout 200 $S --tool memcheck --report-api-errors no $C/gpu-scan__shaped_gpu vector_columns --test-threads=1 > "$R/logs/san-memcheck-columns.log" 2>&1
echo "memcheck columns rc=$? $(grep -E 'ERROR SUMMARY|test result' "$R/logs/san-memcheck-columns.log" | tr '\n' ' ')"
(cd "$OUT" && tar czf h100-a.tgz h100-a && rm -rf h100-a)
