#!/usr/bin/env bash
# Thirty-eighth session, H100 (one-off/h100-close.md, "After the thirty-seventh session"),
# carry gpu-carry (scripts/gpu-bundle.sh: the tests and gpu-bundle/bin of main). PART picks:
#   tests   the whole bundle (bundle-tests-shared.sh then bundle-tests-alone.sh, untimed), then,
#           alone: f64 w 16383 and 65535 at 2^26 (issue 19's rows the last step's cap cut)
#   conv    issue 19's Auto crossings on this GPU, twice each: f32 w 33 … 63 at 2^24/2^26/2^28
#           (direct against the block FFT's 512/1024/2048-point pairs), and the span size of the
#           block FFT at f32 w 640 … 2047 and f64 w 1023 … 2500 (2^26); then bin tune --only columns
#   owed    the next session's first H100 call (one-off/h100-close.md, "After the thirty-eighth
#           session"), on a bundle of main from 1f9e47e on: gpu-scan__host_pipeline alone; Auto
#           with the span keys (f32 767 … 1150, f64 1450 … 2047, 2^26); then the L2 prefetch
#           (scan.prefetch_from = 2^27 by a table) against none, alternating twice: the report's
#           f32/i32/f16/bf16 cumsum at 2^24 and 2^28, and the shapes' one-tile column span and
#           16 x 2^24 segments
#   columns issue 12's long column-span scans with the L2 prefetch and the staged spans off/on
#           (GPU_PRIMS_TUNING tables), alternating twice; then the f32 shapes rows with the peers
# Every timing step runs alone on the GPU. Results: $OUT/s38-PART.tgz.
set -u
cd "$(dirname "$0")/.."
PART=${PART:?tests, conv, columns or owed}
T0=$(date +%s)
left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
B=$PWD/gpu-bundle/bin
R="$OUT/s38-$PART"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf "s38-$PART.tgz" "s38-$PART" && rm -rf "s38-$PART")' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step() { # LABEL SECS CMD...
  local label=$1 to=$2 s; shift 2
  [ "$(left)" -gt 20 ] || { echo "$label skipped: deadline"; return; }
  s=$(date +%s); timeout "$(cap "$to")" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(( $(date +%s) - s ))s"
}
case $PART in
  tests)
    DEADLINE=260 bash one-off/bundle-tests-shared.sh | tail -14
    bash one-off/bundle-tests-alone.sh | tail -6
    step f64-long 120 "$B/conv1d-fft" --log2 26 --types f64 --widths 16383,65535
    cat "$R/f64-long.out" ;;
  conv)
    for r in 1 2; do
      for k in 24 26 28; do
        step "w33-63-$k-$r" 90 "$B/conv1d-fft" --log2 $k --types f32 --widths 33,40,48,56,63 --sizes 512,1024,2048
      done
      step "span-f32-$r" 90 "$B/conv1d-fft" --log2 26 --types f32 --no-direct-above 64 \
        --widths 640,767,900,1023,1150,1300,1500,1750,2047 --sizes 2048,4096,8192,16384
      step "span-f64-$r" 90 "$B/conv1d-fft" --log2 26 --types f64 --no-direct-above 64 \
        --widths 1023,1220,1450,1700,2047,2500 --sizes 2048,4096,8192,16384
    done
    grep -h -v '^#' "$R"/w33-63-*.out "$R"/span-*.out | head -5
    step tune-columns 150 "$B/tune" --only columns --out "$R/tune-columns"
    cat "$R/tune-columns/tuning.txt" 2>/dev/null ;;
  owed)
    OUT="$R" TEST_TIMEOUT=300 TEST_BINS=gpu-scan__host_pipeline gpu-bundle/run-tests.sh > "$R/host_pipeline.txt" 2>&1
    tail -3 "$R/host_pipeline.txt"
    grep -h "waited\|^test " "$R"/tests/gpu-scan__host_pipeline.log 2>/dev/null | tail -16
    step span-f32 60 "$B/conv1d-fft" --log2 26 --types f32 --no-direct-above 64 \
      --widths 767,900,1023,1150 --sizes 2048,4096,16384
    step span-f64 60 "$B/conv1d-fft" --log2 26 --types f64 --no-direct-above 64 \
      --widths 1450,1500,1600,1700,2047 --sizes 4096,8192,16384
    grep -h "auto" "$R"/span-*.out
    printf 'scan.prefetch_from = 134217728\n' > /tmp/pf.txt
    for r in ${ROUNDS:-1 2}; do # each round about 4 minutes: one round a call where time is short
      for v in off pf; do
        if [ $v = off ]; then unset GPU_PRIMS_TUNING; else export GPU_PRIMS_TUNING=/tmp/pf.txt; fi
        step "report-$v-$r" 90 "$B/report" --device-only --only core,scan --sizes 24,28 \
          --types f32,i32,f16,bf16 --cpu-reps 1 --out "$R/report-$v-$r"
        grep -E "\| (copy|auto) \|" "$R/report-$v-$r/report.md" | grep -vE "with copies|segments" | cut -d'|' -f3-10
        step "shapes-$v-$r" 60 "$B/shapes" --log2 28 --quick --scans-only --no-conv --segment-kinds 16x2^24 \
          --types i32,f32 --cases "4194304x64 C axis 0,segments 16x2^24" --out "$R/shapes-$v-$r"
        grep -E "^shapes: (cumsum|segment|copy)" "$R/shapes-$v-$r.log" | sed "s|^shapes: |$v-$r |"
      done
    done
    unset GPU_PRIMS_TUNING ;;
  columns)
    printf 'scan.prefetch_from = 16777216\n' > /tmp/pf.txt
    printf 'scan.column_staged_from = 16777216\n' > /tmp/st.txt
    printf 'scan.prefetch_from = 16777216\nscan.column_staged_from = 16777216\n' > /tmp/both.txt
    CC="4194304x64 C axis 0,64x4194304 F axis 1,262144x1024 C axis 0,16384x16384 C axis 0,16384x16384 F axis 1,262144x1024 F axis 1,segments 16x2^24"
    for r in 1 2; do
      for v in off pf st both; do
        if [ $v = off ]; then unset GPU_PRIMS_TUNING; else export GPU_PRIMS_TUNING=/tmp/$v.txt; fi
        step "col-$v-$r" 60 "$B/shapes" --log2 28 --quick --scans-only --no-conv --segment-kinds 16x2^24 \
          --types i32,f32 --cases "$CC" --out "$R/col-$v-$r"
        grep -E "^shapes: (cumsum|segment|copy)" "$R/col-$v-$r.log" | sed "s|^shapes: |$v-$r |"
      done
    done
    unset GPU_PRIMS_TUNING
    step peers-f32 200 python3 scripts/peers_shapes.py --types f32 --quick --no-conv --out "$R/peers-f32.json"
    step shapes-f32 200 "$B/shapes" --log2 28 --quick --no-conv --types f32 --peers "$R/peers-f32.json" --out "$R/shapes-f32"
    echo "rows ok: $(grep -c ' ok$' "$R/shapes-f32.log"), not ok: $(grep -E '^shapes: ' "$R/shapes-f32.log" | grep -v 'copy of' | grep -v -c ' ok$')" ;;
esac
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
