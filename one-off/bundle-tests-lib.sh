#!/usr/bin/env bash
# Shared by one-off/bundle-tests-{shared,alone}.sh (source it on the GPU machine).
#   ALONE                   the bundle's binaries that need the GPU to themselves (ALONE_EXTRA
#                           adds more: a binary to be seen alone)
#   est BIN                 seconds BIN took side by side on an H200 (thirty-fifth session)
#   bundle_summary R LOGS…  R/tests-summary.txt (one line per binary) and the passed/failed total
ALONE="gpu-conv1d__oom_gpu gpu-scan__columns_staged_limits_gpu gpu-sync__fault_injection gpu-scan__fault_injection gpu-reduce__fault_injection gpu-conv1d__fault_injection gpu-core__driver_faults gpu-sync__context_lost ${ALONE_EXTRA:-}"
est() {
  case "$1" in
    gpu-conv1d__fft_gpu) echo 270;; gpu-scan__kernels) echo 250;; gpu-conv1d__host_pipeline) echo 230;;
    gpu-reduce__kernels) echo 160;; gpu-conv1d__kernels) echo 100;; gpu-scan__shaped_gpu) echo 115;;
    gpu-conv1d__axis_gpu) echo 78;; gpu-scan__host_pipeline) echo 72;; gpu-conv1d__gpu) echo 62;;
    gpu-reduce__host_pipeline) echo 58;; gpu-reduce__shaped_gpu) echo 47;; gpu-scan__columns_staged_gpu) echo 60;;
    gpu-conv1d__tuning_gpu) echo 20;; gpu-conv1d__fft_parts_gpu) echo 120;; gpu-dist__gpu) echo 18;; gpu-scan__gpu) echo 14;;
    *) echo 8;;
  esac
}
bundle_summary() {
  local r=$1; shift
  cat "$@" 2>/dev/null | grep -E '^\[' | sort -k2 > "$r/tests-summary.txt"
  cat "$r/tests-summary.txt"
  cat "$@" 2>/dev/null | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}' | tee "$r/total.txt"
  echo "binaries run: $(wc -l < "$r/tests-summary.txt")"
  grep -v '^\[ok' "$r/tests-summary.txt" | head
}
