#!/usr/bin/env bash
# Session 13, call B (one H200): the look-back status of 8- and 16-byte values split into
# epoch-tagged 64-bit words (no flag, no fence). Carry: gpu-carry3/s13b.tar.xz (this build's
# gpu-scan GPU tests, shapes, report; a89a0e6's shapes and report as old__*).
# 1. Timing, alone on the GPU, old and new alternating twice: flat scans of 8-byte values
#    (report --only scan, 2^27 u64 and f64: 1 GiB), the interleaved columns (vectors of 8 and
#    16 bytes), and 262144x1024 F axis 1 under the shipped walk rule.
# 2. gpu-scan's GPU suites; the sanitizers over 16- and 8-byte monoid flat scans.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s); left() { echo $(( 575 - ($(date +%s) - T0) )); }
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s13b.tar.xz; C=/tmp/c/s13b
R="$OUT/s13b"; mkdir -p "$R"
CASES="67108864x4 C axis 0,134217728x2 C axis 0,262144x1024 F axis 1"
for i in 1 2; do
  for v in old new; do
    b=$C/benches__shapes; r=$C/benches__report; [ $v = old ] && { b=$C/old__shapes; r=$C/old__report; }
    s=$(date +%s); timeout 60 $b --quick --no-conv --scans-only --types f32,i32 --cases "$CASES" --out "$R/shapes-$v-$i" > "$R/shapes-$v-$i.log" 2>&1; echo "shapes $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^shapes: (copy|cumsum)" "$R/shapes-$v-$i.log" | sed 's/^shapes: //' | cut -c1-150
    s=$(date +%s); timeout 90 $r --only scan --sizes 27 --types u64,f64 --quick --device-only --out "$R/report-$v-$i" > "$R/report-$v-$i.log" 2>&1; echo "report $v $i rc=$? $(( $(date +%s) - s ))s"
    grep -E "^\| scan \| (lookback|auto|lookback_staged|lookback_det|lookback_det_staged) \| inclusive sum \|" "$R/report-$v-$i/report.md" | grep -v "block=" | cut -c1-120
  done
done
export GPU_PRIMS_REQUIRE_GPU=1
run_test() {
  s=$(date +%s); timeout "$2" $C/gpu-scan__$1 $3 > "$R/test-$1.txt" 2>&1; echo "$1 rc=$? $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/test-$1.txt" | tr '\n' ' ')"
  grep -E "panicked" "$R/test-$1.txt" | head -3
}
for t in gpu status_reuse_gpu shaped_gpu host_pipeline prefetch_gpu properties half_gpu half_shaped_gpu tuning_gpu; do
  l=$(left); [ "$l" -lt 40 ] && { echo "$t: not run (time)"; continue; }
  run_test $t 120 ""
done
for tool in memcheck synccheck racecheck; do
  l=$(left); [ "$l" -lt 30 ] && { echo "$tool: not run (time)"; continue; }
  s=$(date +%s); timeout $(( l - 15 < 90 ? l - 15 : 90 )) compute-sanitizer --tool $tool --report-api-errors no $C/gpu-scan__gpu gpu_every_algorithm_form_affine_f64 gpu_every_algorithm_form_mat2_u32 > "$R/san-$tool.txt" 2>&1
  echo "$tool rc=$? $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$tool.txt" | tr '\n' ' ')"
done
(cd "$OUT" && tar czf s13b.tgz s13b && rm -rf s13b)
