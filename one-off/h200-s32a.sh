#!/usr/bin/env bash
# Session 32 (2026-12-04), call A (one H200): the whole test bundle of main at c365976 (carry
# gpu-carry from scripts/gpu-bundle.sh), untimed, GPU_PRIMS_REQUIRE_GPU=1.
# 1. Alone, one after the other: the two binaries that fill the GPU's memory on purpose.
# 2. Side by side: every other binary in six groups balanced by their earlier durations; a group
#    starts no binary after DEADLINE seconds (those are listed in not-run.txt for call B).
# What went wrong: the four fault_injection binaries belong with the first step (each compares
# the driver's free memory before and after its injected failures, so the other groups'
# allocations read as leaks): beside the groups they failed; call D ran them alone and they passed.
set -u
cd "$(dirname "$0")/.."
tar xJf gpu-carry/bundle.tar.xz
R="$OUT/s32a"
mkdir -p "$R"
trap '(cd "$OUT" && tar czf s32a.tgz s32a && rm -rf s32a)' EXIT
T0=$(date +%s)
DEADLINE=${DEADLINE:-430}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
ALONE="gpu-conv1d__oom_gpu gpu-scan__columns_staged_limits_gpu"
for b in $ALONE; do
  OUT="$R/alone" TEST_TIMEOUT=150 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/alone.txt" 2>&1
done
echo "alone done at $(( $(date +%s) - T0 ))s"; grep '^\[' "$R/alone.txt"
# Seconds each binary took side by side in session 26 (unknown ones guessed).
est() {
  case "$1" in
    gpu-conv1d__fft_gpu) echo 270;; gpu-scan__kernels) echo 250;; gpu-conv1d__host_pipeline) echo 207;;
    gpu-reduce__kernels) echo 137;; gpu-conv1d__kernels) echo 100;; gpu-scan__shaped_gpu) echo 115;;
    gpu-conv1d__axis_gpu) echo 78;; gpu-scan__host_pipeline) echo 72;; gpu-conv1d__gpu) echo 62;;
    gpu-reduce__host_pipeline) echo 52;; gpu-reduce__shaped_gpu) echo 47;; gpu-conv1d__fault_injection) echo 40;;
    gpu-reduce__fault_injection) echo 35;; gpu-core__driver_faults) echo 28;; gpu-scan__columns_staged_gpu) echo 60;;
    gpu-conv1d__tuning_gpu) echo 20;; gpu-scan__fault_injection) echo 17;; gpu-scan__gpu) echo 14;;
    *) echo 8;;
  esac
}
REST=$(ls gpu-bundle/tests | grep -v -x -F -f <(echo "$ALONE" | tr ' ' '\n'))
# Longest first, each to the group with the least estimated time.
python3 - "$R" $(for b in $REST; do echo "$b:$(est "$b")"; done) <<'PY'
import sys
r = sys.argv[1]; items = [(a.split(':')[0], int(a.split(':')[1])) for a in sys.argv[2:]]
items.sort(key=lambda x: -x[1]); groups = [[0, []] for _ in range(6)]
for name, secs in items:
    g = min(groups, key=lambda g: g[0]); g[0] += secs; g[1].append(name)
for i, (tot, names) in enumerate(groups):
    open(f"{r}/group{i}.lst", "w").write("\n".join(names) + "\n")
    print(f"group {i}: ~{tot}s, {len(names)} binaries")
PY
for g in 0 1 2 3 4 5; do
  (
    while read -r b; do
      [ -n "$b" ] || continue
      if [ $(( $(date +%s) - T0 )) -gt "$DEADLINE" ]; then echo "$b" >> "$R/not-run.txt"; continue; fi
      OUT="$R/g$g" TEST_TIMEOUT=300 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/g$g.txt" 2>&1
    done < "$R/group$g.lst"
  ) &
done
wait
cat "$R"/alone.txt "$R"/g*.txt | grep -E '^\[' | sort -k2 > "$R/tests-summary.txt"
cat "$R/tests-summary.txt"
cat "$R"/alone.txt "$R"/g*.txt | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}'
echo "binaries run: $(wc -l < "$R/tests-summary.txt"); not run: $(cat "$R/not-run.txt" 2>/dev/null | tr '\n' ' ')"
grep -v '^\[ok' "$R/tests-summary.txt" | head
echo "all done at $(( $(date +%s) - T0 ))s"
