#!/usr/bin/env bash
# Forty-seventh session, branch s47-ws-scan: the warp-specialised flat scan through the library.
# Carry gpu-carry2/s47.tar.xz (one-off/carry-s47.sh). In order, each step alone on the GPU:
# gpu-scan's warp_specialized_gpu; it under memcheck, synccheck and racecheck (WS_TEST_MAX_LEN
# 70000), with one-off/mbar-racecheck-probe.cu under racecheck beside it (does racecheck follow
# mbarrier ordering?); gpu-scan's other flat-scan test binaries; then the report's scan rows,
# this build's and main's alternating. If the library's kernels
# show hazards, one-off/ws-racecheck-driver.cu (nvcc -lineinfo) names the header's lines. Steps past DEADLINE (default 570 s) are skipped with a
# line; results in $OUT/s47.tgz. Knobs: SANS (sanitizers, "" for none), SAN_MAX_LEN, TESTS, REPORT_SIZES, ROUNDS, REPORT_NEEDS.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c && { [ -d /tmp/c/s47 ] || tar -C /tmp/c -xJf gpu-carry2/s47.tar.xz; }; C=/tmp/c/s47
R="$OUT/s47"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s47.tgz s47 && rm -rf s47)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
nvcc -O3 -arch=sm_90a -lineinfo -o /tmp/mbar-probe one-off/mbar-racecheck-probe.cu > "$R/nvcc-probe.log" 2>&1 &
nvcc -O3 -lineinfo -gencode arch=compute_90a,code=sm_90a -I kernels/include -o /tmp/ws-drv \
  one-off/ws-racecheck-driver.cu > "$R/nvcc-drv.log" 2>&1 &
step ws-tests 120 "$C/gpu-scan__warp_specialized_gpu" --nocapture
grep -hE "test result|cases match|panicked|SKIPPED" "$R/ws-tests.out" "$R/ws-tests.log" | head -5
for t in ${SANS-memcheck synccheck racecheck}; do
  step "san-$t" 90 env WS_TEST_MAX_LEN=${SAN_MAX_LEN:-70000} compute-sanitizer --tool $t --error-exitcode 9 \
    "$C/gpu-scan__warp_specialized_gpu" --nocapture
  grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|test result|cases match" "$R/san-$t.out" "$R/san-$t.log" | head -4
done
grep -o "scan_warp_specialized.cuh:[0-9]*" "$R/san-racecheck.out" | sort | uniq -c
wait
# With hazards left in the library's kernels, the header's lines by the -lineinfo driver.
if [ -f "$R/san-racecheck.out" ] && ! grep -q "RACECHECK SUMMARY: 0 hazards" "$R/san-racecheck.out"; then
  [ -x /tmp/ws-drv ] && step drv 30 /tmp/ws-drv && tail -2 "$R/drv.out"
  [ -x /tmp/ws-drv ] && step drv-racecheck 90 compute-sanitizer --tool racecheck /tmp/ws-drv
  grep -o "scan_warp_specialized.cuh:[0-9]*" "$R/drv-racecheck.out" 2>/dev/null | sort | uniq -c
  grep -hE "RACECHECK SUMMARY|match" "$R/drv-racecheck.out" 2>/dev/null | tail -2
fi
[ -x /tmp/mbar-probe ] && step probe 40 compute-sanitizer --tool racecheck /tmp/mbar-probe
grep -hE "done|read|RACECHECK SUMMARY|Race reported" "$R/probe.out" "$R/probe.log" | head -8
for t in ${TESTS:-gpu status_reuse_gpu prefetch_gpu tuning_gpu gpu_scan host_pipeline fault_injection}; do
  step "t-$t" 90 "$C/gpu-scan__$t"
  grep -hE "test result|panicked" "$R/t-$t.out" "$R/t-$t.log" | head -3
done
A="--device-only --only core,scan --sizes ${REPORT_SIZES:-20,22,24,26,28} --types i32,f32 --cpu-reps 1"
for v in ${ROUNDS:-new main new}; do
  B=$C/benches__report; [ $v = main ] && B=$C/report-main
  [ "$(left)" -gt "${REPORT_NEEDS:-110}" ] || { echo "report $v skipped: deadline"; continue; }
  # shellcheck disable=SC2086
  D="$R/report-$v-$(left)"
  step "report-$v" 100 "$B" $A --out "$D"
  grep -hE "\| (copy|auto) \|" "$D"/report.md 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -E "device to device|inclusive" | cut -d'|' -f3-8 | tail -20
done
echo "all done at $(( $(date +%s) - T0 ))s"
