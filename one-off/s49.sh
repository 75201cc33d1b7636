#!/usr/bin/env bash
# Forty-ninth session, branch s48-ws-float, second call (carry gpu-carry2/s47.tar.xz): what the
# first call (one-off/s48.sh) left out. memcheck of warp_specialized_gpu without API errors (its
# 4 reports were the host pipeline's cuPointerGetAttribute probe of pageable memory, by design);
# gpu-scan's host_pipeline binary, alone and under memcheck; then the report's scan rows, this
# build's and main's (94a63a4, before the kernel) alternating at REPORT_SIZES.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
mkdir -p /tmp/c && { [ -d /tmp/c/s47 ] || tar -C /tmp/c -xJf gpu-carry2/s47.tar.xz; }; C=/tmp/c/s47
R="$OUT/s49b"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s49b.tgz s49b && rm -rf s49b)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
step san-memcheck 90 env WS_TEST_MAX_LEN=${SAN_MAX_LEN:-70000} compute-sanitizer --tool memcheck \
  --report-api-errors no --error-exitcode 9 "$C/gpu-scan__warp_specialized_gpu" --nocapture
grep -hE "ERROR SUMMARY|test result|cases match" "$R/san-memcheck.out" "$R/san-memcheck.log" | head -4
step t-host_pipeline 90 "$C/gpu-scan__host_pipeline"
grep -hE "test result|panicked" "$R/t-host_pipeline.out" "$R/t-host_pipeline.log" | head -3
step san-host_pipeline 120 compute-sanitizer --tool memcheck --report-api-errors no --error-exitcode 9 \
  "$C/gpu-scan__host_pipeline"
grep -hE "ERROR SUMMARY|test result|panicked" "$R/san-host_pipeline.out" "$R/san-host_pipeline.log" | head -4
A="--device-only --only core,scan --sizes ${REPORT_SIZES:-24,26,28} --types i32,f32 --cpu-reps 1"
for v in ${ROUNDS:-new main new main}; do
  B=$C/benches__report; [ $v = main ] && B=$C/report-main
  [ "$(left)" -gt "${REPORT_NEEDS:-80}" ] || { echo "report $v skipped: deadline"; continue; }
  # shellcheck disable=SC2086
  D="$R/report-$v-$(left)"
  step "report-$v" 100 "$B" $A --out "$D"
  grep -hE "\| (copy|auto) \|" "$D"/report.md 2>/dev/null | grep -vE "with copies|block=|rayon" |
    grep -E "device to device|inclusive" | cut -d'|' -f3-8 | tail -20
done
echo "all done at $(( $(date +%s) - T0 ))s"
