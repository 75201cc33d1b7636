#!/usr/bin/env bash
# Fiftieth session, one call on an H200 (carry gpu-carry2: s50.tar.xz from one-off/carry-s50.sh,
# main's build). What s49-h200.sh asked, with the "before the kernel" scan rows taken from the
# same report under a tuning table that turns the warp-specialised kernel off
# (scan.warp_specialized_from = 2^40), so the two rounds differ by that key alone. nvidia-smi
# samples clocks, power and throttle reasons every 100 ms (smi-*.csv, steps stamped in
# steps.txt). In order, each step alone on the GPU: warp_specialized_gpu and gpu-scan's gpu and
# status_reuse_gpu; the scan rows with and without the kernel at 2^22-2^28 (ROUNDS, default
# "on off on off"); gpu-conv1d's `gpu` binary; the conv1d f32 rows at 2^28, w 31 / 7 / 127; then
# issue 24's 16-bit rows with PyTorch (h100-s45.sh part `half`). DEADLINE (default 480 s).
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c && { [ -d /tmp/c/s50 ] || tar -C /tmp/c -xJf gpu-carry2/s50.tar.xz; }; C=/tmp/c/s50
R="$OUT/s50h"; mkdir -p "$R"
smi_sample
trap 'kill $SMI_PIDS 2>/dev/null; (cd "$OUT" && tar czf s50h.tgz s50h && rm -rf s50h)' EXIT
export GPU_PRIMS_REQUIRE_GPU=1
st() { echo "$(date +%H:%M:%S.%N | cut -c1-12) $*" >> "$R/steps.txt"; }
run() { local l=$1; st "start $l"; step "$@"; st "end $l"; }
run ws-tests 60 "$C/gpu-scan__warp_specialized_gpu" --nocapture
grep -hE "test result|cases match|panicked" "$R/ws-tests.out" "$R/ws-tests.log" | head -3
for t in ${SCAN_TESTS-gpu status_reuse_gpu}; do
  run "t-$t" 60 "$C/gpu-scan__$t"; grep -hE "test result|panicked" "$R/t-$t.out" "$R/t-$t.log" | head -2
done
printf 'scan.warp_specialized_from = 1099511627776\n' > /tmp/ws-off.tune
A="--device-only --only core,scan --sizes ${REPORT_SIZES:-22,23,24,26,28} --types i32,f32 --cpu-reps 1"
i=0
for v in ${ROUNDS:-on off on off}; do
  i=$((i + 1))
  [ "$(left)" -gt 140 ] || { echo "scan $i-$v skipped: deadline"; continue; }
  T=""; [ "$v" = off ] && T=/tmp/ws-off.tune
  # shellcheck disable=SC2086
  GPU_PRIMS_TUNING=$T run "scan-$i-$v" 80 "$C/benches__report" $A --out "$R/scan-$i-$v"
  grep -hE "\| (copy|auto) \|" "$R/scan-$i-$v"/report.md 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -E "device to device|inclusive" | cut -d'|' -f3-8
done
run conv-gpu 100 "$C/gpu-conv1d__gpu"
grep -h "^test result\|panicked\|FAILED" "$R/conv-gpu.out" "$R/conv-gpu.log" | head
for w in ${CONV_WIDTHS:-31 7 127}; do
  run "conv-w$w" 60 "$C/benches__report" --device-only --only core,conv1d --sizes 28 --types f32 \
    --widths "$w" --cpu-reps 1 --out "$R/conv-w$w"
  grep -hE "\| (copy|auto) \|" "$R/conv-w$w"/report.md 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -iE "device to device|conv" | cut -d"|" -f2-8 | head -6
done
kill $SMI_PIDS 2>/dev/null
if [ "$(left)" -gt 120 ]; then
  mkdir -p /tmp/c/s45 && ln -sf "$C/benches__report" /tmp/c/s45/benches__report
  DEADLINE=$(left) PART="half" bash one-off/h100-s45.sh
  mv "$OUT/s45.tgz" "$R/" 2>/dev/null
fi
echo "all done at $(( $(date +%s) - T0 ))s"
