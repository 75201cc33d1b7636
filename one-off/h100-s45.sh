#!/usr/bin/env bash
# Forty-fifth session, one H100, carry gpu-carry2/s45.tar.xz (main's gpu binary
# and report, built by one-off/carry-s45.sh, beside fd370b1's report from gpu-carry3/close.tar.xz). PART picks
# (default "gpu san small before" on an H100, "gpu san ws half" on an H200; PART for either,
# PARTS_H100 / PARTS_H200 for the GPU that comes):
#   gpu     the gpu binary whole (GPU_PRIMS_REQUIRE_GPU=1)
#   san     memcheck, racecheck and synccheck over the warpgroup cross-product test (f16)
#   small   the report at 2^28, f16 and bf16, w 3/5/7/9: auto against warpgroup and the FMA
#           kernels
#   half    issue 24's 16-bit rows (for the H200): PyTorch then the report at 2^28, f16 and bf16,
#           sum, max, cumsum, conv1d w 3/5/7/9/31/127 (the narrow-mask crossing included)
#   ws      issue 24's scan lead: one-off/ws-scan-harness.cu (warp-specialised look-back scan)
#           beside the shipped tile (scan-epoch-harness.cu -DBASE_ONLY), 2^24 and 2^28
#           (WS_SIZES; WS_FLAGS=-DFEW for four shapes only)
#   tf32    issue 24's conv1d lead: one-off/tf32-conv-harness.cu (3xTF32 on warpgroup tensor cores)
#           beside the shipped FMA kernels, w 7/15/31 at 2^28 (and 7/31 at 2^24), with accuracy
#   reduce  the reduce rows alone (2^24, 2^28), this build and fd370b1's alternating three times
#   before  issue 24's H100 before/after: peers (PyTorch, CuPy, CUB), then this build's report
#           and fd370b1's alternating (ROUNDS, default "new old new old"), each alone on the GPU
# Steps past DEADLINE (570 s) are skipped with a line; results in $OUT/s45.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c && { [ -d /tmp/c/s45 ] || tar -C /tmp/c -xJf gpu-carry2/s45.tar.xz; }; C=/tmp/c/s45
R="$OUT/s45"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s45.tgz s45 && rm -rf s45)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
rows() { grep -E "\| (copy|auto|warpgroup|register_tiled|cub|pytorch|cupy) \|" "$1" | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-10; }
# Default: what the GPU found needs (an H200 gets the 16-bit rows, an H100 the before/after).
grep -q H200 "$R/gpu.txt" && dflt=${PARTS_H200:-gpu san ws half} || dflt=${PARTS_H100:-gpu san small before}
# The tf32 harness builds in the background from the start (CPU only), ready for its part.
case " ${PART:-$dflt} " in *" tf32 "*)
  nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -I kernels/include -o /tmp/tf32-conv one-off/tf32-conv-harness.cu \
    > "$R/nvcc-tf32.log" 2>&1 & TF32_BUILD=$! ;;
esac
for p in ${PART:-$dflt}; do
  case $p in
    gpu)
      export GPU_PRIMS_REQUIRE_GPU=1
      step gpu 150 "$C/gpu-conv1d__gpu"
      grep -h "^test result\|panicked\|FAILED" "$R/gpu.out" "$R/gpu.log" | head ;;
    san)
      # The warpgroup kernel under the three sanitizers.
      for t in memcheck racecheck synccheck; do
        step "san-$t" 90 compute-sanitizer --tool $t --error-exitcode 9 "$C/gpu-conv1d__gpu" \
          gpu_cross_warpgroup_f16 --exact --test-threads=1
        grep -hE "ERROR SUMMARY|RACECHECK SUMMARY|test result" "$R/san-$t.out" "$R/san-$t.log" | head -3
      done ;;
    small)
      step small-28 120 "$C/benches__report" --device-only --only core,conv1d \
        --sizes 28 --types f16,bf16 --widths 3,5,7,9 --cpu-reps 1 --out "$R/small-28"
      rows "$R/small-28/report.md" ;;
    half)
      step peers-half 120 python3 scripts/peers.py --sizes 28 --types f16,bf16 --ops sum,max,cumsum,conv1d \
        --widths 3,7,31,127 --out "$R/peers-half.json"
      H="--device-only --only core,reduce,scan,conv1d --sizes 28 --types f16,bf16 --widths 3,5,7,9,31,127 --cpu-reps 1"
      [ -s "$R/peers-half.json" ] && H="$H --peers $R/peers-half.json"
      # shellcheck disable=SC2086
      step report-half 200 "$C/benches__report" $H --out "$R/report-half"
      rows "$R/report-half/report.md" ;;
    reduce)
      # The reduce rows alone, this build and fd370b1's alternating: is a 1 % gap noise?
      A="--device-only --only core,reduce --sizes 24,28 --types i32,f32 --cpu-reps 1"
      i=0
      for v in new old new old new old; do
        i=$((i + 1)); B=$C/benches__report; [ $v = old ] && B=$C/report-fd370b1
        # shellcheck disable=SC2086
        step "reduce-$i-$v" 75 "$B" $A --out "$R/reduce-$i-$v"
        rows "$R/reduce-$i-$v/report.md" | grep "2^28"
      done ;;
    before)
      step peers 150 python3 scripts/peers.py --sizes 20,24,28 --types i32,f32 --ops sum,max,cumsum,conv1d \
        --widths 3,7,31,127 --out "$R/peers.json"
      nvcc -O3 -std=c++17 -arch=native -o /tmp/peers_cub scripts/peers_cub.cu > "$R/nvcc.log" 2>&1 &&
        step peers-cub 60 /tmp/peers_cub 20 24 28
      A="--device-only --only core,reduce,scan,conv1d --sizes 20,24,28 --types i32,f32 --widths 3,7,31,127 --cpu-reps 1"
      [ -s "$R/peers.json" ] && A="$A --peers $R/peers.json"
      i=0
      for v in ${ROUNDS:-new old new old}; do
        i=$((i + 1)); B=$C/benches__report; to=200; [ $v = old ] && { B=$C/report-fd370b1; to=110; }
        [ "$(left)" -gt $((to + 10)) ] || { echo "report $i $v skipped: deadline"; continue; }
        # shellcheck disable=SC2086
        step "report-$i-$v" $to "$B" $A --out "$R/report-$i-$v"
        grep -E "\| (copy|auto) \|" "$R/report-$i-$v/report.md" | grep -vE "with copies|block=|rayon" | cut -d'|' -f2-10 | head -60
      done ;;
    ws)
      nvcc -O3 -std=c++17 -arch=sm_90a ${WS_FLAGS:-} -I kernels/include -o /tmp/ws-scan one-off/ws-scan-harness.cu > "$R/nvcc-ws.log" 2>&1 &
      nvcc -O3 -std=c++17 -arch=sm_90a -DBASE_ONLY -I kernels/include -o /tmp/scan-base \
        one-off/scan-epoch-harness.cu > "$R/nvcc-base.log" 2>&1 &
      wait
      echo "compiled at $(( $(date +%s) - T0 ))s"
      [ -x /tmp/ws-scan ] && [ -x /tmp/scan-base ] || { echo "nvcc failed"; tail -20 "$R"/nvcc-*.log; continue; }
      step ws 150 /tmp/ws-scan 20 "${WS_SIZES:-24,28}"
      cat "$R/ws.out"; tail -5 "$R/ws.log"
      step scan-base 90 /tmp/scan-base 20 "${WS_SIZES:-24,28}"
      grep -E "copy|epoch" "$R/scan-base.out" ;;
    tf32)
      wait "$TF32_BUILD"; echo "tf32 built at $(( $(date +%s) - T0 ))s"
      [ -x /tmp/tf32-conv ] || { echo "nvcc failed"; tail -20 "$R/nvcc-tf32.log"; continue; }
      step tf32-28 150 /tmp/tf32-conv 28 20 all 7,15,31
      cat "$R/tf32-28.out"; tail -3 "$R/tf32-28.log"
      step tf32-24 60 /tmp/tf32-conv 24 50 ship16,ship24,tf32 7,31
      cat "$R/tf32-24.out"; tail -3 "$R/tf32-24.log" ;;
    *) echo "unknown part $p" ;;
  esac
done
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
