#!/usr/bin/env bash
# Session 20 (2026-12-03), call A (one H200). Carry: gpu-carry/ (scripts/gpu-bundle.sh of the
# build with bf16 span values widened by a 32-bit pack) plus gpu-bundle/bin/old__conv1d-fft (7d4492b's
# conv1d-fft, whose kernels are 7b137b9's).
# 1. Alone on the GPU: conv1d-fft 2^26 `same` bf16 at each size's `Auto` width (1023: 4096-point
#    pairs, 2047: 8192, 4095: even-and-odd 16384, 8191 and 16383: 32768), new and old builds
#    alternating twice.
# 2. Untimed, side by side: the whole test bundle in four groups (GPU_PRIMS_REQUIRE_GPU=1), all
#    but oom_gpu, and compute-sanitizer over the bf16 FFT kernels (racecheck and synccheck over
#    gpu_fft_sanitize_radix32, synccheck and memcheck over the small and wide blocks).
# 3. oom_gpu alone (it fills the device).
# Everything under $OUT is packed into one file.
set -u
cd "$(dirname "$0")/.."
T0=$(date +%s)
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
R="$OUT/x20a"; mkdir -p "$R"
trap '(cd "$OUT" && tar czf x20a.tgz x20a && rm -rf x20a)' EXIT
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
bench() {  # label timeout binary args...
  local label=$1 to=$2 b=$3; shift 3
  local s=$(date +%s); timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"; echo "$label rc=$? $(( $(date +%s) - s ))s"
}
NEW=gpu-bundle/bin/conv1d-fft OLD=gpu-bundle/bin/old__conv1d-fft
A="--types bf16 --widths 1023,2047 --no-direct-above 0 --sizes 4096,8192"
B="--types bf16 --widths 4095,8191,16383 --no-direct-above 0 --sizes 16384,32768"
for k in 1 2; do
  bench new$k 20 $NEW $A
  bench old$k 20 $OLD $A
  bench newe$k 20 $NEW $B
  bench olde$k 20 $OLD $B
done
for f in "$R"/*.tsv; do grep -E "copy|fft:[0-9]" "$f" | sed "s|^|$(basename $f .tsv) |"; done | sort -k3,3n -k4,4 | grep -v "fft:16384.*16383" > "$R/bench-summary.txt"
cat "$R/bench-summary.txt"
echo "benches done at $(( $(date +%s) - T0 ))s"

export GPU_PRIMS_REQUIRE_GPU=1
ALL="$(ls gpu-bundle/tests | grep -v '^gpu-conv1d__oom_gpu$')"
# Four groups of about equal time: the long binaries first, one a group, then round robin.
G0="gpu-conv1d__fft_gpu"
G1="gpu-scan__kernels gpu-conv1d__host_pipeline gpu-conv1d__axis_gpu"
G2="gpu-reduce__kernels gpu-conv1d__gpu gpu-scan__host_pipeline gpu-conv1d__tuning_gpu"
G3="gpu-reduce__fault_injection gpu-conv1d__kernels gpu-conv1d__fault_injection gpu-reduce__host_pipeline gpu-core__driver_faults"
REST="$(echo "$ALL" | grep -v -x -F -f <(echo $G0 $G1 $G2 $G3 | tr ' ' '\n'))"
G1="$G1 $(echo "$REST" | awk 'NR % 3 == 0' | tr '\n' ' ')"
G2="$G2 $(echo "$REST" | awk 'NR % 3 == 1' | tr '\n' ' ')"
G3="$G3 $(echo "$REST" | awk 'NR % 3 == 2' | tr '\n' ' ')"
# fft_gpu in three processes: its two 16-bit every-size tests (about 260 s each alone) and the rest.
ft() {  # name args...
  local name=$1; shift; local s=$(date +%s)
  timeout 320 gpu-bundle/tests/gpu-conv1d__fft_gpu "$@" > "$R/fft-$name.log" 2>&1; local rc=$?
  echo "fft_gpu $name rc=$rc $(( $(date +%s) - s ))s $(grep -E '^test result' "$R/fft-$name.log" | tail -1)"
  [ $rc = 0 ] || grep -E "panicked|FAILED" -A4 "$R/fft-$name.log" | head -12
}
(ft bf16 gpu_fft_every_size_mode_boundary_bf16) > "$R/group0a.txt" 2>&1 &
(ft f16 gpu_fft_every_size_mode_boundary_f16) > "$R/group0b.txt" 2>&1 &
(ft rest --skip gpu_fft_every_size_mode_boundary_bf16 --skip gpu_fft_every_size_mode_boundary_f16) > "$R/group0c.txt" 2>&1 &
for g in 1 2 3; do
  eval "bins=\$G$g"
  ( OUT="$R/group$g" TEST_BINS="$bins" TEST_TIMEOUT=300 timeout 320 gpu-bundle/run-tests.sh > "$R/group$g.txt" 2>&1 ) &
done
S=gpu-bundle/tests/gpu-conv1d__fft_gpu
san() {  # name tool timeout test
  local s=$(date +%s)
  timeout "$3" compute-sanitizer --tool "$2" --error-exitcode 9 $S "$4" > "$R/san-$1.log" 2>&1; local rc=$?
  echo "$1 ($2 $4) rc=$rc $(( $(date +%s) - s ))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$1.log" | tr '\n' ' ')"
}
(san race32 racecheck 230 gpu_fft_sanitize_radix32; san sync32 synccheck 80 gpu_fft_sanitize_radix32) > "$R/san1.txt" 2>&1 &
(san syncsmall synccheck 170 gpu_fft_sanitize_small_blocks; san memsmall memcheck 140 gpu_fft_sanitize_small_blocks) > "$R/san2.txt" 2>&1 &
(san memwide memcheck 170 gpu_fft_sanitize_wide_blocks; san syncwide synccheck 140 gpu_fft_sanitize_wide_blocks) > "$R/san3.txt" 2>&1 &
wait
echo "parallel phase done at $(( $(date +%s) - T0 ))s"
( OUT="$R/group4" TEST_BINS="gpu-conv1d__oom_gpu" TEST_TIMEOUT=80 gpu-bundle/run-tests.sh > "$R/group4.txt" 2>&1 )
cat "$R"/group[1-4].txt | grep -v -E '^\(|passed, .* failed$' > "$R/tests-summary.txt"
cat "$R"/group[1-4].txt | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}' >> "$R/tests-summary.txt"
grep -v "^\[ok" "$R/tests-summary.txt" | head -40; tail -1 "$R/tests-summary.txt"; echo "plus fft_gpu:"; cat "$R"/group0?.txt
cat "$R"/san?.txt
echo "all done at $(( $(date +%s) - T0 ))s"
