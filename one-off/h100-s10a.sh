#!/usr/bin/env bash
# Issue 13 session 10, call A (one H100): the 16-bit tensor-core conv1d harness
# (one-off/tc-harness.cu, built here with nvcc): committed kernel against staging variants,
# 2^28 and 2^24 f16, then Nsight Compute (source counters) on the committed kernel and one
# variant at 2^26, w 31, each alone on the GPU.
set -u
cd "$(dirname "$0")/.."
R="$OUT/s10a"; mkdir -p "$R"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader > "$R/gpu.txt"
s=$(date +%s)
nvcc -O3 -std=c++17 -arch=sm_90 -I kernels/include -DKERNEL_FILE='"conv1d_sm80_before.cu"' -o /tmp/tch one-off/tc-harness.cu > "$R/nvcc.log" 2>&1 || { cat "$R/nvcc.log" | head -40; exit 1; }
echo "nvcc $(( $(date +%s) - s ))s"
true
for k in ${SASS_OF:-}; do cuobjdump -sass -fun $k /tmp/tch > "$R/sass-$k.txt" 2>&1; done
/tmp/tch 28 20 3,31,63,127 "${VARIANTS:-b1,b4_m8}" | tee "$R/n28.txt"
/tmp/tch 24 30 31,127 "${VARIANTS:-b1,b4_m8}" | tee "$R/n24.txt"
for k in ${NCU_KERNELS:-}; do
  timeout 150 ncu --set full --import-source no -k regex:"^$k\$" --launch-skip 3 -c 1 -f -o "$R/ncu-$k" \
    /tmp/tch 26 1 ${NCU_W:-31} "${NCU_NAME:-b4_m8}" > "$R/ncu-$k.log" 2>&1
  echo "ncu $k rc=$?"
  ncu -i "$R/ncu-$k.ncu-rep" --page details > "$R/ncu-$k-details.txt" 2>&1
  ncu -i "$R/ncu-$k.ncu-rep" --page source --csv --print-source sass > "$R/ncu-$k-sass.csv" 2>&1
done
(cd "$OUT" && tar czf s10a.tgz s10a && rm -rf s10a)
