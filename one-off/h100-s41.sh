#!/usr/bin/env bash
# Forty-first session, H100 (one-off/h100-close.md, "After the fortieth session"), carry gpu-carry
# (scripts/gpu-bundle.sh of branch s39-fft-parts, which holds main). PART picks:
#   tests-shared, tests-alone  the whole bundle, untimed, GPU_PRIMS_REQUIRE_GPU=1 (two calls, as
#           one-off/h100-s39.sh; gpu-conv1d__fft_parts_gpu runs side by side with a 300 s limit)
#   parts   the mask in parts: its test alone to the end (it ran past 60 s last time), the three
#           sanitizers over its sanitizer-sized test, then conv1d-fft rows (Auto, one span, parts,
#           cuFFT; past the direct rows checked against cuFFT) at 2^26, f64 8191 … 40000 and f32
#           16383 … 131071, and the tuning tool's conv1d sweep (the parts' crossings)
# Every timing step runs alone on the GPU. Results: $OUT/s41-PART.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
PART=${PART:?tests-shared, tests-alone or parts}
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
B=$PWD/gpu-bundle/bin
R="$OUT/s41-$PART"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf "s41-$PART.tgz" "s41-$PART" && rm -rf "s41-$PART")' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
case $PART in
  tests-shared|tests-alone)
    export ALONE_EXTRA=${ALONE_EXTRA-gpu-scan__host_pipeline gpu-conv1d__host_pipeline}
    [ "$PART" = tests-alone ] || DEADLINE=${TESTS_DEADLINE:-260} bash one-off/bundle-tests-shared.sh | tail -14
    [ "$PART" = tests-shared ] || bash one-off/bundle-tests-alone.sh | tail -8 ;;
  parts)
    export GPU_PRIMS_REQUIRE_GPU=1
    step parts-test 300 gpu-bundle/tests/gpu-conv1d__fft_parts_gpu --nocapture
    grep -hE "test result|parts accuracy|panicked" "$R/parts-test.out" "$R/parts-test.log"
    for tool in memcheck racecheck synccheck; do
      extra=; [ $tool = memcheck ] && extra="--report-api-errors no"
      step "san-parts-$tool" 120 compute-sanitizer --tool $tool $extra --error-exitcode 9 \
        gpu-bundle/tests/gpu-conv1d__fft_parts_gpu gpu_fft_parts_for_the_sanitizers
      grep -hE "SUMMARY|test result" "$R/san-parts-$tool.out" "$R/san-parts-$tool.log" 2>/dev/null
    done
    unset GPU_PRIMS_REQUIRE_GPU
    step rows-f64 150 "$B/conv1d-fft" --log2 26 --types f64 --no-direct-above 64 \
      --widths 8191,9215,10239,11263,12287,13311,16383,24575,30000,40000 --sizes 16384,1048576 --parts 0
    step rows-f32 150 "$B/conv1d-fft" --log2 26 --types f32 --no-direct-above 64 \
      --widths 16383,20479,24575,28671,49151,65535,98303,131071 --sizes 32768,1048576 --parts 0
    cat "$R"/rows-*.out
    step tune-conv1d 240 "$B/tune" --only conv1d --out "$R/tune"
    grep -E "conv1d\.fft_parts|conv1d\.cufft" "$R/tune/tune.md" | tail -12 ;;
esac
find "$R" -name "*.svg" -delete
echo "all done at $(( $(date +%s) - T0 ))s"
