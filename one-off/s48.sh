#!/usr/bin/env bash
# Forty-eighth session, one call on whichever GPU comes (carry gpu-carry2: s47.tar.xz from
# one-off/carry-s47.sh, and s45.tar.xz holding main's gpu-conv1d `gpu` binary alone).
#   first: one-off/h100-s47.sh (branch s47-ws-scan: the warp-specialised scan's test, the
#          sanitizers (SANS), the flat-scan tests (TESTS), the report's scan rows of the branch
#          and main at REPORT_SIZES) within S47_SECS;
#   then, on an H200 only: one-off/h100-s45.sh parts `gpu half` (main's gpu-conv1d `gpu` binary,
#          issue 24's 16-bit rows with PyTorch), its report being main's (s47/report-main).
# DEADLINE (default 570 s) bounds the whole call.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
export REPORT_SIZES=${REPORT_SIZES:-22,23,24,26,28} ROUNDS=${ROUNDS:-new main}
export TESTS=${TESTS:-gpu status_reuse_gpu prefetch_gpu tuning_gpu gpu_scan fault_injection}
DEADLINE=${S47_SECS:-300} bash one-off/h100-s47.sh
if nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200; then
  mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry2/s45.tar.xz
  ln -sf /tmp/c/s47/report-main /tmp/c/s45/benches__report
  DEADLINE=$(( ${DEADLINE:-570} - ($(date +%s) - T0) )) PART="gpu half" bash one-off/h100-s45.sh
fi
