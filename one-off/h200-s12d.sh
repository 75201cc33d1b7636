#!/usr/bin/env bash
# Session 12, call D (one H200): first-call latency of gpu-reduce, main at 0ad9f7f (old) and
# 7d5b015 (new: 156 more kernels, the in-warp forms), one-off/first-sum.rs built as an example of
# each; fresh processes alternating, three rounds, CUDA_CACHE_DISABLE=1 (sm_90 cubins from the
# archives). Carry: gpu-carry3/s12d.tar.xz. Prints `variant case open_s first_s second_s`.
set -u
cd "$(dirname "$0")/.."
mkdir -p /tmp/c && tar -C /tmp/c -xJf gpu-carry3/s12d.tar.xz; C=/tmp/c/s12d
R="$OUT/s12d"; mkdir -p "$R"
for round in 1 2 3; do for case in reduce reduce-axis reduce-segments reduce-rows reduce-segments-long; do for v in old new; do
  echo "$v $(CUDA_CACHE_DISABLE=1 timeout 20 $C/first-sum-$v $case 2>&1 | tail -1)" | tee -a "$R/first.txt"
done; done; done
(cd "$OUT" && tar czf s12d.tgz s12d && rm -rf s12d)
