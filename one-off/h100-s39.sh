#!/usr/bin/env bash
# Thirty-ninth session, H100 (one-off/h100-close.md, "After the thirty-eighth session"), carry
# gpu-carry (scripts/gpu-bundle.sh of main). PART picks:
#   tests   the whole bundle, untimed, GPU_PRIMS_REQUIRE_GPU=1: bundle-tests-shared.sh (DEADLINE
#           260) then bundle-tests-alone.sh, with both host pipeline suites among the binaries
#           run alone (ALONE_EXTRA; each ran past 250 s side by side in one of the last two
#           sessions). After the thirty-ninth session's fixes the alone part takes ~10 minutes:
#           run the two parts as two calls (PART=tests-shared, PART=tests-alone)
#   prefetch the L2 prefetch against none (GPU_PRIMS_TUNING tables), ROUNDS rounds (one a
#           call): the report's f32/i32/f16/bf16 cumsum at 2^28 (scan.prefetch_from), the
#           shapes' column spans of 1, 8 and 128 tiles and the segments (16 x 2^24, 1-8,
#           1-2000; scan.shaped_prefetch_from); then Auto with the span keys (f32 767 … 1150,
#           f64 1450 … 2047; the thirty-ninth session ran these already)
#   parts   branch s39-fft-parts: Strategy::FftParts against cuFFT (f64 w 8191 … 30000, f32
#           16383 … 65535, 2^26) and its sanitizer-sized test under the three sanitizers
#   shapes  the f32 shapes table with PyTorch and CuPy in the same call (TUNING=file: with that
#           table), then the f32 segments
# Every timing step runs alone on the GPU. Results: $OUT/s39-PART.tgz.
set -u
cd "$(dirname "$0")/.."
PART=${PART:?tests, tests-shared, tests-alone, prefetch, parts or shapes}
T0=$(date +%s)
left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
B=$PWD/gpu-bundle/bin
R="$OUT/s39-$PART"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf "s39-$PART.tgz" "s39-$PART" && rm -rf "s39-$PART")' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
step() { # LABEL SECS CMD...
  local label=$1 to=$2 s; shift 2
  [ "$(left)" -gt 20 ] || { echo "$label skipped: deadline"; return; }
  s=$(date +%s); timeout "$(cap "$to")" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(( $(date +%s) - s ))s"
}
case $PART in
  tests|tests-shared|tests-alone)
    export ALONE_EXTRA=${ALONE_EXTRA-gpu-scan__host_pipeline gpu-conv1d__host_pipeline}
    [ "$PART" = tests-alone ] || DEADLINE=${TESTS_DEADLINE:-260} bash one-off/bundle-tests-shared.sh | tail -14
    [ "$PART" = tests-shared ] || bash one-off/bundle-tests-alone.sh | tail -8 ;;
  prefetch)
    # off: neither prefetch; pf: the flat scans' (scan.prefetch_from = 2^27, a table) and the
    # shaped scans' as built in (scan.shaped_prefetch_from = 2^27 since the thirty-ninth session).
    printf 'scan.prefetch_from = 1099511627776\nscan.shaped_prefetch_from = 1099511627776\n' > /tmp/off.txt
    printf 'scan.prefetch_from = 134217728\n' > /tmp/pf.txt
    CASES=${CASES:-4194304x64 C axis 0,262144x1024 C axis 0,16384x16384 C axis 0,segments 16x2^24,segments 1-8,segments 1-2000}
    for r in ${ROUNDS:-1}; do # each round about 8 minutes: one round a call
      for v in off pf; do
        export GPU_PRIMS_TUNING=/tmp/$v.txt
        # 2^28 only: with 2^24 too the report (CPU rows included) ran past 90 s four times.
        step "report-$v-$r" 150 "$B/report" --device-only --only core,scan --sizes 28 \
          --types f32,i32,f16,bf16 --cpu-reps 1 --out "$R/report-$v-$r"
        grep -E "\| (copy|auto) \|" "$R/report-$v-$r/report.md" | grep -vE "with copies|segments" | cut -d'|' -f3-10
        step "shapes-$v-$r" 150 "$B/shapes" --log2 28 --quick --scans-only --no-conv --segment-kinds 16x2^24,1-8,1-2000 \
          --types i32,f32 --cases "$CASES" --out "$R/shapes-$v-$r"
        grep -E "^shapes: (cumsum|segment|copy)" "$R/shapes-$v-$r.log" | sed "s|^shapes: |$v-$r |"
      done
    done
    unset GPU_PRIMS_TUNING
    step span-f32 60 "$B/conv1d-fft" --log2 26 --types f32 --no-direct-above 64 \
      --widths 767,900,1023,1150 --sizes 2048,4096,16384
    step span-f64 60 "$B/conv1d-fft" --log2 26 --types f64 --no-direct-above 64 \
      --widths 1450,1500,1700,2047 --sizes 4096,8192,16384
    grep -h "auto" "$R"/span-*.out ;;
  parts)
    # Branch s39-fft-parts: the mask in parts (Strategy::FftParts) against cuFFT and the block
    # FFT's widest spans; then its sanitizer-sized test under memcheck, racecheck, synccheck.
    step parts-f64 150 "$B/conv1d-fft" --log2 26 --types f64 --no-direct-above 64 \
      --widths 8191,15361,15362,16383,20000,30000 --sizes 16384,1048576 --parts 0,2,3
    step parts-f32 150 "$B/conv1d-fft" --log2 26 --types f32 --no-direct-above 64 \
      --widths 16383,31745,31746,40000,65535 --sizes 32768,1048576 --parts 0,2,4
    cat "$R"/parts-*.out
    for tool in memcheck racecheck synccheck; do
      extra=; [ $tool = memcheck ] && extra="--report-api-errors no"
      step "san-parts-$tool" 120 compute-sanitizer --tool $tool $extra --error-exitcode 9 \
        gpu-bundle/tests/gpu-conv1d__fft_parts_gpu gpu_fft_parts_for_the_sanitizers
      grep -hE "SUMMARY|test result" "$R/san-parts-$tool.out" "$R/san-parts-$tool.log" 2>/dev/null
    done ;;
  shapes)
    [ -n "${TUNING:-}" ] && export GPU_PRIMS_TUNING=$TUNING
    step peers-f32 230 python3 scripts/peers_shapes.py --types f32 --quick --no-conv --out "$R/peers-f32.json"
    step shapes-f32 300 "$B/shapes" --log2 28 --quick --no-conv --types f32 --peers "$R/peers-f32.json" --out "$R/shapes-f32"
    echo "rows ok: $(grep -c ' ok$' "$R/shapes-f32.log"), not ok: $(grep -E '^shapes: ' "$R/shapes-f32.log" | grep -v 'copy of' | grep -v -c ' ok$')" ;;
esac
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
