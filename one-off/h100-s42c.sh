#!/usr/bin/env bash
# Forty-second session: every gpu-conv1d test binary of main as it closes issue 19 (the parts'
# keys built in, check_fft_block, the fixed missing-libcufft test), GPU_PRIMS_REQUIRE_GPU=1:
# the shared ones side by side, oom_gpu and fault_injection alone after them (carry gpu-carry2
# from one-off/carry-s42c.sh). Results: $OUT/s42c.tgz.
set -u
cd "$(dirname "$0")/.."
source one-off/step-lib.sh
[ -d gpu-carry2/s42c ] || tar -C gpu-carry2 -xJf gpu-carry2/s42c.tar.xz; C=gpu-carry2/s42c
R="$OUT/s42c"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf s42c.tgz s42c && rm -rf s42c)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
# Four lanes side by side, the longest binaries first (the bundle's seven-group rule, smaller).
run_one() { timeout "$(cap 400)" "$C/$1" > "$R/$1.out" 2> "$R/$1.log"; echo "$1 rc=$?" >> "$R/rc.txt"; }
export -f run_one left cap; export C R T0
for n in fft_gpu host_pipeline fft_parts_gpu kernels axis_gpu gpu tuning_gpu gpu_conv1d properties inputs cpu axis_cpu; do
  echo "gpu-conv1d__$n"
done | xargs -P 4 -I{} bash -c 'run_one {}'
cat "$R/rc.txt"
step oom 120 $C/gpu-conv1d__oom_gpu
step fault 120 $C/gpu-conv1d__fault_injection
echo "gpu-conv1d__oom_gpu: see oom.out" ; echo "gpu-conv1d__fault_injection: see fault.out"
for f in "$R"/*.out; do printf '%s: ' "$(basename "$f" .out)"; grep -h "^test result" "$f" | tail -1; done
grep -h "FAILED\|panicked" "$R"/*.out "$R"/*.log | head -20
echo "all done at $(( $(date +%s) - T0 ))s"
