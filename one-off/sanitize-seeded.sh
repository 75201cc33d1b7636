#!/usr/bin/env bash
# compute-sanitizer over the seeded look-back scans and the sharded algorithms (one GPU each,
# side by side on GPUs 0-3: no timing runs meanwhile).
cd "$(dirname "$0")/.."
export GPU_PRIMS_REQUIRE_GPU=1 QUICKCHECK_TESTS=20
run() { # gpu tool bin filter...
  local g=$1 tool=$2 bin=$3; shift 3
  local log="$OUT/san-$tool-$bin.log"
  if CUDA_VISIBLE_DEVICES=$g timeout 400 compute-sanitizer --tool "$tool" --error-exitcode 1 \
       gpu-bundle/tests/$bin "$@" --test-threads=1 >"$log" 2>&1; then
    echo "compute-sanitizer $tool $bin $*: clean ($(grep -m1 -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$log")) $(grep -m1 'test result' "$log")"
  else
    echo "compute-sanitizer $tool $bin $*: FAILED"; grep -m8 -E "=====|test result|panicked" "$log"
  fi
}
run 0 memcheck gpu-scan__shaped_gpu scans_from_a_seed &
run 1 racecheck gpu-scan__shaped_gpu scans_from_a_seed &
run 2 synccheck gpu-scan__shaped_gpu scans_from_a_seed &
run 3 memcheck gpu-dist__gpu generated_filled_and_partial_arrays shards_over_every_device ranks_of_separate_processes &
wait
