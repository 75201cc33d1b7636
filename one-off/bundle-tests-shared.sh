#!/usr/bin/env bash
# The whole test bundle on one GPU, first of two calls (H100 closing plan: one-off/h100-close.md;
# generalized from one-off/h200-s35b.sh), carry gpu-carry (scripts/gpu-bundle.sh), untimed,
# GPU_PRIMS_REQUIRE_GPU=1. NAME (default tests-a) names $OUT/NAME.tgz.
# 1. Every binary of the bundle but those that need the GPU to themselves (ALONE: the next call,
#    one-off/bundle-tests-alone.sh, on the same machine), in seven groups side by side, balanced
#    by the thirty-fifth session's durations; a group starts no binary after DEADLINE seconds
#    (those go to not-run.txt and /tmp/bundle-not-run.txt for the next call).
# 2. Beside them: compute-sanitizer memcheck, synccheck and racecheck over gpu-reduce's
#    lanes_sanitize_every_mapping and gpu-scan's property tests' smallest kernels
#    (SAN_TESTS: "BIN FILTER" pairs separated by ';').
set -u
cd "$(dirname "$0")/.."
[ -d gpu-bundle ] || tar xJf gpu-carry/bundle.tar.xz
NAME=${NAME:-tests-a}
R="$OUT/$NAME"
mkdir -p "$R"
trap '(cd "$OUT" && tar czf "$NAME.tgz" "$NAME" && rm -rf "$NAME")' EXIT
T0=$(date +%s)
DEADLINE=${DEADLINE:-330}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
source one-off/bundle-tests-lib.sh
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
rm -f /tmp/bundle-not-run.txt
for g in 0 1 2 3 4 5 6; do
  (
    while read -r b; do
      [ -n "$b" ] || continue
      if [ $(( $(date +%s) - T0 )) -gt "$DEADLINE" ]; then echo "$b" >> "$R/not-run.txt"; continue; fi
      OUT="$R/g$g" TEST_TIMEOUT=250 TEST_BINS="$b" gpu-bundle/run-tests.sh >> "$R/g$g.txt" 2>&1
    done < "$R/group$g.lst"
  ) &
done
export GPU_PRIMS_REQUIRE_GPU=1
IFS=';' read -r -a PAIRS <<< "${SAN_TESTS:-gpu-reduce__shaped_gpu lanes_sanitize}"
i=0
for pair in "${PAIRS[@]}"; do
  read -r bin filter <<< "$pair"
  for tool in memcheck synccheck racecheck; do
    extra=; [ $tool = memcheck ] && extra="--report-api-errors no"
    ( timeout 400 compute-sanitizer --tool $tool $extra --error-exitcode 9 "gpu-bundle/tests/$bin" $filter > "$R/san-$i-$tool.log" 2>&1
      echo "$bin $filter $tool rc=$? $(grep -E 'RACECHECK SUMMARY|ERROR SUMMARY|test result' "$R/san-$i-$tool.log" | tr '\n' ' ')" ) &
  done
  i=$((i + 1))
done
wait
bundle_summary "$R" "$R"/g*.txt
cp "$R/not-run.txt" /tmp/bundle-not-run.txt 2>/dev/null
echo "not run: $(cat "$R/not-run.txt" 2>/dev/null | tr '\n' ' ')"
echo "all done at $(( $(date +%s) - T0 ))s"
