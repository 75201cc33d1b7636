#!/usr/bin/env bash
# Shared by the one-off device scripts (h200-x22*.sh on): source it on the GPU machine from the
# repository root after setting C (the unpacked carry) and R (the results folder under $OUT).
#   dev_begin CARRY [NAME]  unpacks gpu-carry3/CARRY.tar.xz into /tmp/c, sets C and R ($OUT/NAME,
#                           NAME defaulting to CARRY), packs R into $OUT/NAME.tgz on exit;
#                           records the GPU and driver in $R/gpu.txt
#   bench LABEL SECS BIN ARGS...
#                           one benchmark alone on the GPU, stdout to $R/LABEL.tsv
#   bench_summary           the copy, fft and auto rows of every $R/*.tsv, sorted by width
#   t NAME BIN SECS ARGS... a test binary of the carry, log $R/NAME.log, its summary line
#   left / cap SECS         seconds left before DEADLINE (default 570) since T0; SECS, or less
#                           where the deadline is nearer (a step's timeout)
#   san NAME TOOL SECS BIN TEST
#                           compute-sanitizer TOOL over one test of BIN, log $R/san-NAME.log
# Timings must run alone on the GPU: call bench only while nothing else runs there.
T0=$(date +%s)

dev_begin() {
  mkdir -p /tmp/c && tar -C /tmp/c -xJf "gpu-carry3/$1.tar.xz"
  C=/tmp/c/$1
  local name=${2:-$1}
  R="$OUT/$name"
  mkdir -p "$R"
  # shellcheck disable=SC2064
  trap "(cd \"$OUT\" && tar czf $name.tgz $name && rm -rf $name)" EXIT
  nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
}

bench() {
  local label=$1 to=$2 b=$3
  shift 3
  local s
  s=$(date +%s)
  timeout "$to" "$b" "$@" > "$R/$label.tsv" 2> "$R/$label.err"
  echo "$label rc=$? $(($(date +%s) - s))s"
}

bench_summary() {
  for f in "$R"/*.tsv; do
    grep -E "copy|fft:[0-9]|auto:" "$f" | sed "s|^|$(basename "$f" .tsv) |"
  done | sort -k2,2 -k3,3n -k4,4 -k1,1 > "$R/bench-summary.txt"
  cat "$R/bench-summary.txt"
  echo "benches done at $(($(date +%s) - T0))s"
}

t() {
  local name=$1 b=$2 to=$3
  shift 3
  local s
  s=$(date +%s)
  timeout "$to" "$C/$b" "$@" > "$R/$name.log" 2>&1
  local rc=$?
  echo "$name rc=$rc $(($(date +%s) - s))s $(grep -E '^test result' "$R/$name.log" | tail -1)"
  [ $rc = 0 ] || grep -E "panicked|FAILED" -A4 "$R/$name.log" | head -12
}

san() {
  local s
  s=$(date +%s)
  timeout "$3" compute-sanitizer --tool "$2" --error-exitcode 9 "$C/$4" "$5" > "$R/san-$1.log" 2>&1
  local rc=$?
  echo "$1 ($2 $5) rc=$rc $(($(date +%s) - s))s $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|test result' "$R/san-$1.log" | tr '\n' ' ')"
}

left() { echo $(( ${DEADLINE:-570} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
