#!/usr/bin/env bash
# Shared by the device scripts (one-off/h100-s41*.sh): source it first (it starts the clock),
# then set R (the results folder under $OUT). DEADLINE (default 570 s) bounds the whole call.
#   left              seconds left before DEADLINE
#   cap SECS          SECS, or what is left (less 5 s) if that is shorter
#   step LABEL SECS CMD...   runs CMD alone under `timeout`, stdout/stderr to $R/LABEL.out/.log,
#                     skipped with a line when under 20 s are left
#   smi_sample        the GPU's name and limits to $R/gpu.txt, then clocks, power and throttle
#                     reasons every 100 ms to $R/smi-*.csv in the background (PIDs in SMI_PIDS)
T0=$(date +%s)
left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
step() {
  local label=$1 to=$2 s; shift 2
  [ "$(left)" -gt 20 ] || { echo "$label skipped: deadline"; return; }
  s=$(date +%s); timeout "$(cap "$to")" "$@" > "$R/$label.out" 2> "$R/$label.log"
  echo "$label rc=$? $(( $(date +%s) - s ))s"
}
smi_sample() {
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv | tee "$R/gpu.txt"
  nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
    --format=csv,noheader -lms 100 > "$R/smi-clocks.csv" 2>&1 &
  SMI_PIDS=$!
  nvidia-smi --query-gpu=timestamp,clocks_throttle_reasons.active --format=csv,noheader -lms 100 \
    > "$R/smi-reasons.csv" 2>&1 &
  SMI_PIDS="$SMI_PIDS $!"
}
