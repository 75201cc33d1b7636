#!/usr/bin/env bash
# Session 35 (2026-12-05), call B (one H200), carry gpu-carry (scripts/gpu-bundle.sh over branch
# s33-short-stores), untimed, GPU_PRIMS_REQUIRE_GPU=1.
# 1. Every binary of the bundle but call A's (those that need the GPU alone), in seven groups side
#    by side, balanced by the thirty-second session's durations; a group starts no binary after
#    DEADLINE seconds (those go to not-run.txt, and
#    /tmp/s35-not-run.txt for call C on the same machine).
# 2. Beside them: compute-sanitizer memcheck, synccheck and racecheck over gpu-reduce's
#    lanes_sanitize_every_mapping (every columns mapping, the thread-per-group stores included).
set -u
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
R="$OUT/s35b"
mkdir -p "$R"
trap '(cd "$OUT" && tar czf s35b.tgz s35b && rm -rf s35b)' EXIT
T0=$(date +%s)
DEADLINE=${DEADLINE:-330}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
ALONE="gpu-conv1d__oom_gpu gpu-scan__columns_staged_limits_gpu gpu-sync__fault_injection gpu-scan__fault_injection gpu-reduce__fault_injection gpu-conv1d__fault_injection gpu-core__driver_faults gpu-sync__context_lost"
est() {
  case "$1" in
    gpu-conv1d__fft_gpu) echo 270;; gpu-scan__kernels) echo 250;; gpu-conv1d__host_pipeline) echo 207;;
    gpu-reduce__kernels) echo 137;; gpu-conv1d__kernels) echo 100;; gpu-scan__shaped_gpu) echo 115;;
    gpu-conv1d__axis_gpu) echo 78;; gpu-scan__host_pipeline) echo 72;; gpu-conv1d__gpu) echo 62;;
    gpu-reduce__host_pipeline) echo 52;; gpu-reduce__shaped_gpu) echo 47;; gpu-scan__columns_staged_gpu) echo 60;;
    gpu-conv1d__tuning_gpu) echo 20;; gpu-scan__gpu) echo 14;;
    *) echo 8;;
  esac
}
REST=$(ls gpu-bundle/tests | grep -v -x -F -f <(echo "$ALONE" | tr ' ' '\n'))
python3 - "$R" $(for b in $REST; do echo "$b:$(est "$b")"; done) <<'PY'
import sys
r = sys.argv[1]; items = [(a.split(':')[0], int(a.split(':')[1])) for a in sys.argv[2:]]
items.sort(key=lambda x: -x[1]); groups = [[0, []] for _ in range(7)]
for name, secs in items:
    g = min(groups, key=lambda g: g[0]); g[0] += secs; g[1].append(name)
for i, (tot, names) in enumerate(groups):
    open(f"{r}/group{i}.lst", "w").write("\n".join(names) + "\n")
    print(f"group {i}: ~{tot}s, {len(names)} binaries")
PY
for g in 0 1 2 3 4 5 6; do
  (
    while read -r b; do
      [ -n "$b" ] || continue
      if [ $(( $(date +%s) - T0 )) -gt "$DEADLINE" ]; then echo "$b" >> "$R/not-run.txt"; continue; fi
      OUT="$R/g$g" TEST_TIMEOUT=250 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/g$g.txt" 2>&1
    done < "$R/group$g.lst"
  ) &
done
C2=gpu-bundle/tests/gpu-reduce__shaped_gpu
san() { # TOOL ARGS...: one compute-sanitizer tool over lanes_sanitize
  local tool=$1; shift
  timeout 400 compute-sanitizer --tool "$tool" "$@" --error-exitcode 9 "$C2" lanes_sanitize > "$R/san-$tool.log" 2>&1
  echo "$tool rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-$tool.log" | tr '\n' ' ')"
}
export GPU_PRIMS_REQUIRE_GPU=1
( san memcheck --report-api-errors no ) &
( san synccheck ) &
( san racecheck ) &
wait
cat "$R"/g*.txt | grep -E '^\[' | sort -k2 > "$R/tests-summary.txt"
cat "$R/tests-summary.txt"
cat "$R"/g*.txt | awk '/ passed, .* failed$/ {p += $1; f += $3} END {printf "%d passed, %d failed\n", p, f}'
cp "$R/not-run.txt" /tmp/s35-not-run.txt 2>/dev/null
echo "binaries run: $(wc -l < "$R/tests-summary.txt"); not run: $(cat "$R/not-run.txt" 2>/dev/null | tr '\n' ' ')"
grep -v '^\[ok' "$R/tests-summary.txt" | head
echo "all done at $(( $(date +%s) - T0 ))s"
