#!/usr/bin/env bash
# Session 17, call A (one H200): the FFT convolution's block kernel beside twiddle layouts and the
# lean pair (one-off/fft-conv-harness.cu, nvcc sm_90, timed alone on the GPU), then Nsight Compute
# on the shipped 4096-, 8192- and 16384-point pairs: why a third of the issue slots stay empty
# (stall reasons, raw metrics, and the stall samples per SASS instruction).
set -u
cd "$(dirname "$0")/.."
R="$OUT/x17a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv > "$R/gpu.txt" 2>&1
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -Xptxas -v -I kernels/include one-off/fft-conv-harness.cu -o /tmp/fh > "$R/build.txt" 2>&1; echo "build rc=$? $(( $(date +%s) - s ))s"
for i in 1 2; do
  s=$(date +%s); timeout 100 /tmp/fh 20 > "$R/harness$i.txt" 2>&1; echo "harness$i rc=$? $(( $(date +%s) - s ))s"
  cat "$R/harness$i.txt"
done
for v in N4096_E32_B3_PF0 N8192_E32_B2_PF0 N16384_E32_B1_PF0; do
  s=$(date +%s)
  timeout 100 ncu --set full --import-source no -k regex:kfft -c 1 -o "$R/ncu-$v" /tmp/fh ncu $v > "$R/ncu-$v.log" 2>&1
  echo "ncu $v rc=$? $(( $(date +%s) - s ))s"
  ncu -i "$R/ncu-$v.ncu-rep" --page details > "$R/ncu-$v.txt" 2>&1
  ncu -i "$R/ncu-$v.ncu-rep" --page raw --csv > "$R/ncu-$v-raw.csv" 2>&1
  ncu -i "$R/ncu-$v.ncu-rep" --page source --csv --print-source sass > "$R/ncu-$v-sass.csv" 2>&1
  grep -E "Duration|Issue Slots Busy|Executed Ipc A|No Eligible|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" "$R/ncu-$v.txt" | head -12
  tr ',' '\n' < "$R/ncu-$v-raw.csv" | head -1 > /dev/null
  python3 - "$R/ncu-$v-raw.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
if len(rows) >= 3:
    h, u, v = rows[0], rows[1], rows[2]
    st = [(float(v[i].replace(',', '') or 0), h[i]) for i in range(len(h))
          if h[i].startswith("smsp__average_warps_issue_stalled_") and h[i].endswith("_per_issue_active.ratio")]
    for val, name in sorted(st, reverse=True)[:12]:
        print(f"  {val:8.3f}  {name[len('smsp__average_warps_issue_stalled_'):-len('_per_issue_active.ratio')]}")
PY
done
rm -f "$R"/*.ncu-rep.tmp
(cd "$OUT" && tar czf x17a.tgz x17a && rm -rf x17a)
