#!/usr/bin/env bash
# Forty-ninth session, one call on an H200 (carry gpu-carry2: s47.tar.xz is main's build of the
# scan and the report since the ws float sums landed, beside main's gpu-conv1d `gpu` binary in
# s45.tar.xz). nvidia-smi samples clocks, power and throttle reasons every 100 ms throughout
# (smi-*.csv), each step's start and end stamped in steps.txt. In order, each step alone on the
# GPU: warp_specialized_gpu and gpu-scan's gpu and status_reuse_gpu; the report's scan rows
# with the kernel (this build) and before it (94a63a4) at 2^22-2^28; gpu-conv1d's `gpu` binary
# (the warpgroup kernel's tests on the H200); the conv1d f32 rows at 2^28, w 7 / 31 / 127 (are the
# clocks or the power limit what holds w = 31?); then issue 24's 16-bit rows with PyTorch
# (one-off/h100-s45.sh part `half`). DEADLINE (default 480 s) bounds the whole call.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry2/s47.tar.xz && tar -C /tmp/c -xJf gpu-carry2/s45.tar.xz
C=/tmp/c/s47
R="$OUT/s49h"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv | tee "$R/gpu.txt"
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
  --format=csv,noheader -lms 100 > "$R/smi-clocks.csv" 2>&1 & P1=$!
nvidia-smi --query-gpu=timestamp,clocks_throttle_reasons.active --format=csv,noheader -lms 100 \
  > "$R/smi-reasons.csv" 2>&1 & P2=$!
trap 'kill $P1 $P2 2>/dev/null; (cd "$OUT" && tar czf s49h.tgz s49h && rm -rf s49h)' EXIT
export GPU_PRIMS_REQUIRE_GPU=1
st() { echo "$(date +%H:%M:%S.%N | cut -c1-12) $*" >> "$R/steps.txt"; }
run() { local l=$1; st "start $l"; step "$@"; st "end $l"; }
run ws-tests 60 "$C/gpu-scan__warp_specialized_gpu" --nocapture
grep -hE "test result|cases match|panicked" "$R/ws-tests.out" "$R/ws-tests.log" | head -3
for t in ${SCAN_TESTS-gpu status_reuse_gpu}; do
  run "t-$t" 60 "$C/gpu-scan__$t"; grep -hE "test result|panicked" "$R/t-$t.out" "$R/t-$t.log" | head -2
done
A="--device-only --only core,scan --sizes ${REPORT_SIZES:-22,23,24,26,28} --types i32,f32 --cpu-reps 1"
for v in ${ROUNDS:-new main}; do
  B=$C/benches__report; [ $v = main ] && B=$C/report-main
  [ "$(left)" -gt 100 ] || { echo "report $v skipped: deadline"; continue; }
  # shellcheck disable=SC2086
  run "scan-$v" 100 "$B" $A --out "$R/scan-$v"
  grep -hE "\| (copy|auto) \|" "$R/scan-$v"/report.md 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -E "device to device|inclusive" | cut -d'|' -f3-8
done
run conv-gpu 100 /tmp/c/s45/gpu-conv1d__gpu
grep -h "^test result\|panicked\|FAILED" "$R/conv-gpu.out" "$R/conv-gpu.log" | head
for w in ${CONV_WIDTHS:-31 7 127}; do
  run "conv-w$w" 60 "$C/benches__report" --device-only --only core,conv1d --sizes 28 --types f32 \
    --widths $w --cpu-reps 1 --out "$R/conv-w$w"
  grep -hE "\| (copy|auto) \|" "$R/conv-w$w"/report.md 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -iE "device to device|conv" | cut -d"|" -f2-8 | head -6
done
kill $P1 $P2 2>/dev/null
if [ "$(left)" -gt 120 ]; then
  ln -sf /tmp/c/s47/benches__report /tmp/c/s45/benches__report
  DEADLINE=$(left) PART="half" bash one-off/h100-s45.sh
  mv "$OUT/s45.tgz" "$R/" 2>/dev/null
fi
echo "all done at $(( $(date +%s) - T0 ))s"
