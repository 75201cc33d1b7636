#!/usr/bin/env bash
# Session 20 (2026-12-03), call B (one H200). Carry: gpu-carry/ as call A (the build with bf16
# span values widened by a 32-bit pack; gpu-bundle/bin/old__conv1d-fft is 7b137b9's kernels).
# 1. Alone on the GPU: conv1d-fft 2^26 `same` bf16 and f16 at 1279-2047 (`Auto` runs the
#    warpgroup kernel there for bf16) against the 4096- and 8192-point FFTs, twice; the 4096-point
#    bf16 pair at w = 1023, new and old alternating three times.
# 2. Untimed: the test binaries call A's groups did not reach before their limit (gpu-scan's
#    kernels, prefetch_gpu, shaped_cpu, shaped_gpu, tuning_gpu; gpu-sync's four), in two lines.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
R="$OUT/x20b"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x20b.tgz x20b && rm -rf x20b)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
NEW=gpu-bundle/bin/conv1d-fft OLD=gpu-bundle/bin/old__conv1d-fft
for k in 1 2; do
  bench half$k 40 $NEW --types bf16,f16 --widths 1279,1535,1791,2047 --no-direct-above 0 --sizes 4096,8192
done
for k in 1 2 3; do
  bench p4096new$k 15 $NEW --types bf16 --widths 1023 --no-direct-above 0 --sizes 4096
  bench p4096old$k 15 $OLD --types bf16 --widths 1023 --no-direct-above 0 --sizes 4096
done
for f in "$R"/*.tsv; do grep -E "auto:|copy|fft:[0-9]" "$f" | sed "s|^|$(basename $f .tsv) |"; done | sort -k2,2 -k3,3n -k4,4 > "$R/bench-summary.txt"
cat "$R/bench-summary.txt"
echo "benches done at $(( $(date +%s) - T0 ))s"
export GPU_PRIMS_REQUIRE_GPU=1
( OUT="$R/group1" TEST_BINS="gpu-scan__kernels" TEST_TIMEOUT=250 gpu-bundle/run-tests.sh > "$R/group1.txt" 2>&1 ) &
( OUT="$R/group2" TEST_BINS="gpu-scan__prefetch_gpu gpu-scan__shaped_cpu gpu-scan__shaped_gpu gpu-scan__tuning_gpu" TEST_TIMEOUT=200 gpu-bundle/run-tests.sh > "$R/group2.txt" 2>&1 ) &
wait
( OUT="$R/group3" TEST_BINS="gpu-sync__context_lost gpu-sync__gpu gpu-sync__gpu_sync gpu-sync__sanitize" TEST_TIMEOUT=100 gpu-bundle/run-tests.sh > "$R/group3.txt" 2>&1 )
cat "$R"/group[1-3].txt
echo "all done at $(( $(date +%s) - T0 ))s"
