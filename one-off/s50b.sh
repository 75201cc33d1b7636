#!/usr/bin/env bash
# Fiftieth session: branch s50-store-interior (conv1d's fixed-width tiles store interior tiles
# without bounds) on whichever GPU comes (carry gpu-carry2: s50.tar.xz is main's build,
# s50b.tar.xz the branch's, one-off/carry-s50{,b}.sh). nvidia-smi samples clocks, power and
# throttle reasons every 100 ms (smi-*.csv; steps stamped in steps.txt; one-off/smi-steps.py).
# In order, each step alone on the GPU:
#   the branch's gpu-conv1d `gpu` and `tuning_gpu` binaries;
#   the conv1d rows at 2^28 (2^24 too on an H100), f32 and f16 (CONV_TYPES), w 31 and 7 (f16
#     w 31: the warpgroup kernel), branch and main alternating;
#   on an H200: warp_specialized_gpu (and gpu-scan's SCAN_TESTS, e.g. "gpu status_reuse_gpu") and the scan rows with the kernel on and off (a tuning
#     table, scan.warp_specialized_from = 2^40), then issue 24's 16-bit rows with PyTorch;
#   on an H100: memcheck, racecheck and synccheck over tuning_gpu (the fixed-width tiles), then
#     memcheck and racecheck over the warpgroup kernel's f16 cross product.
# DEADLINE (default 560 s) bounds the whole call; results in $OUT/s50b.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c
for t in s50 s50b; do [ -d /tmp/c/$t ] || tar -C /tmp/c -xJf gpu-carry2/$t.tar.xz; done
M=/tmp/c/s50; B=/tmp/c/s50b
R="$OUT/s50b"; mkdir -p "$R"
smi_sample
trap 'kill $SMI_PIDS 2>/dev/null; (cd "$OUT" && tar czf s50b.tgz s50b && rm -rf s50b)' EXIT
export GPU_PRIMS_REQUIRE_GPU=1
H200=0; grep -q H200 "$R/gpu.txt" && H200=1
st() { echo "$(date +%H:%M:%S.%N | cut -c1-12) $*" >> "$R/steps.txt"; }
run() { local l=$1; st "start $l"; step "$@"; st "end $l"; }
rows() { grep -hE "\| (copy|auto) \|" "$1" 2>/dev/null | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-8; }
run b-conv-gpu 120 "$B/gpu-conv1d__gpu"
grep -h "^test result\|panicked\|FAILED" "$R/b-conv-gpu.out" "$R/b-conv-gpu.log" | head
run b-tuning 60 "$B/gpu-conv1d__tuning_gpu" --nocapture
grep -h "^test result\|panicked\|FAILED\|wide .* tiles" "$R/b-tuning.out" "$R/b-tuning.log" | head
S=28; [ $H200 = 1 ] || S=24,28
i=0
for v in ${CONV_ROUNDS:-new main new main}; do
  i=$((i + 1)); X=$B/benches__report; [ $v = main ] && X=$M/benches__report
  [ "$(left)" -gt 150 ] || { echo "conv $i-$v skipped: deadline"; continue; }
  run "conv-$i-$v" 90 "$X" --device-only --only core,conv1d --sizes $S --types ${CONV_TYPES:-f32,f16} --widths 31,7 \
    --cpu-reps 1 --out "$R/conv-$i-$v"
  rows "$R/conv-$i-$v/report.md" | grep -iE "device to device|conv"
done
if [ $H200 = 1 ]; then
  run ws-tests 60 "$M/gpu-scan__warp_specialized_gpu" --nocapture
  grep -hE "test result|cases match|panicked" "$R/ws-tests.out" "$R/ws-tests.log" | head -3
  for t in ${SCAN_TESTS-}; do
    [ "$(left)" -gt 200 ] || { echo "t-$t skipped: deadline"; continue; }
    run "t-$t" 60 "$M/gpu-scan__$t"; grep -hE "test result|panicked" "$R/t-$t.out" "$R/t-$t.log" | head -2
  done
  printf 'scan.warp_specialized_from = 1099511627776\n' > /tmp/ws-off.tune
  i=0
  for v in ${SCAN_ROUNDS:-on off}; do
    i=$((i + 1)); T=""; [ "$v" = off ] && T=/tmp/ws-off.tune
    [ "$(left)" -gt 100 ] || { echo "scan $i-$v skipped: deadline"; continue; }
    GPU_PRIMS_TUNING=$T run "scan-$i-$v" 80 "$B/benches__report" --device-only --only core,scan \
      --sizes 24,28 --types i32,f32 --cpu-reps 1 --out "$R/scan-$i-$v"
    rows "$R/scan-$i-$v/report.md" | grep -E "device to device|inclusive"
  done
  kill $SMI_PIDS 2>/dev/null
  if [ "$(left)" -gt 120 ]; then
    mkdir -p /tmp/c/s45 && ln -sf "$B/benches__report" /tmp/c/s45/benches__report
    DEADLINE=$(left) PART="half" bash one-off/h100-s45.sh
    mv "$OUT/s45.tgz" "$R/" 2>/dev/null
  fi
else
  for s in memcheck racecheck synccheck; do
    run "san-$s" $([ $s = racecheck ] && echo 300 || echo 100) compute-sanitizer --tool $s --error-exitcode 9 "$B/gpu-conv1d__tuning_gpu"
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$R/san-$s.out" "$R/san-$s.log" | head -3
  done
  # The warpgroup kernel's interior store (rows of 3 tiles + 5 among the lengths).
  for s in memcheck racecheck; do
    run "san-wg-$s" 90 compute-sanitizer --tool $s --error-exitcode 9 "$B/gpu-conv1d__gpu" \
      gpu_cross_warpgroup_f16 --exact --test-threads=1
    grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$R/san-wg-$s.out" "$R/san-wg-$s.log" | head -3
  done
fi
echo "all done at $(( $(date +%s) - T0 ))s"
