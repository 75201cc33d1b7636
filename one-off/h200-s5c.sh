#!/usr/bin/env bash
# Issue 24 session 5, call C (one H200): the L2-prefetching kernels (kernels/scan_sm90.cu,
# kernels/conv1d_sm90.cu) and the look-back rows over epoch-tagged status, through the library:
# gpu-scan's and gpu-conv1d's GPU tests touching them, gpu-dist's one-GPU tests, every kernel
# loaded from its PTX, then memcheck / racecheck / synccheck over the prefetch tests (one test
# thread). Carry: one-off/carry-s5c.sh.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/c5.tar.xz; C=gpu-carry2/c5
R="$OUT/s5c"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-470} - ($(date +%s) - T0) )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
declare -A TL=([gpu-scan__gpu]=150 [gpu-scan__shaped_gpu]=120 [gpu-scan__kernels]=150 [gpu-conv1d__gpu]=150 [gpu-conv1d__kernels]=120)
run_test() {
  local b=$1 t
  [ "$(left)" -gt 40 ] || { echo "$b skipped: deadline"; return; }
  t=${TL[$b]:-90}; [ "$t" -lt "$(left)" ] || t=$(( $(left) - 10 ))
  s=$(date +%s); timeout $t $C/$b --nocapture > "$R/logs/test-$b.txt" 2>&1; rc=$?
  echo "$b rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/logs/test-$b.txt" | tail -1)"
  [ $rc = 0 ] || grep -E "FAILED|panicked|failed" "$R/logs/test-$b.txt" | head -5
  grep -hE "^prefetching scans|^wide tiles|look-back rows in" "$R/logs/test-$b.txt" | head -3
}
run_test gpu-scan__prefetch_gpu
run_test gpu-conv1d__tuning_gpu
for b in gpu-scan__prefetch_gpu gpu-conv1d__tuning_gpu; do
  for t in memcheck racecheck synccheck; do
    [ "$(left)" -gt 60 ] || { echo "$b $t skipped: deadline"; continue; }
    s=$(date +%s); PREFETCH_TEST_MAX_LEN=1048577 timeout $(( $(left) > 120 ? 120 : $(left) - 30 )) compute-sanitizer --tool $t --report-api-errors no $C/$b --test-threads=1 > "$R/logs/san-$b-$t.txt" 2>&1
    echo "$b $t rc=$? $(( $(date +%s) - s ))s $(grep -E 'SUMMARY|^test result' "$R/logs/san-$b-$t.txt" | tr '\n' ' ')"
  done
done
for b in gpu-scan__status_reuse_gpu gpu-scan__kernels gpu-conv1d__kernels gpu-scan__shaped_gpu gpu-scan__tuning_gpu gpu-dist__gpu gpu-scan__host_pipeline gpu-scan__gpu gpu-scan__half_shaped_gpu gpu-conv1d__gpu; do
  run_test $b
done
(cd "$OUT" && tar czf s5c.tgz s5c && rm -rf s5c)
