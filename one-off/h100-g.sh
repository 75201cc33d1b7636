#!/usr/bin/env bash
# Issue 14, call G (one H100): the gpu-reduce test binaries call F2 did not reach (carry g,
# GPU_PRIMS_REQUIRE_GPU=1), then call R's figures (one-off/report-f.sh) from the same carry,
# after the tests, alone on the GPU.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/g ] || tar -C gpu-carry2 -xJf gpu-carry2/g.tar.xz; C=gpu-carry2/g
R="$OUT/h100-g"; mkdir -p "$R/logs"
P=0; F=0
for b in gpu-reduce__kernels gpu-reduce__properties gpu-reduce__shaped_cpu gpu-reduce__shaped_gpu gpu-reduce__tuning_gpu; do
  s=$(date +%s)
  GPU_PRIMS_REQUIRE_GPU=1 timeout -k 10 240 $C/$b > "$R/logs/$b.log" 2>&1; rc=$?
  line=$(grep -E '^test result' "$R/logs/$b.log" | tail -1)
  p=$(grep -Eo '[0-9]+ passed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  i=$(grep -Eo '[0-9]+ ignored' <<<"$line" | awk '{s+=$1} END {print s+0}')
  [ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
  P=$((P+p)); F=$((F+f))
  printf '%-40s rc=%-3s passed=%s failed=%s ignored=%s %ss\n' $b $rc $p $f $i $(( $(date +%s) - s )) | tee -a "$R/summary.txt"
done
echo "$P passed, $F failed" | tee -a "$R/summary.txt"
(cd "$OUT" && tar czf h100-g.tgz h100-g && rm -rf h100-g)
mkdir -p gpu-carry2/f3 && ln -sf ../g/benches__report gpu-carry2/f3/benches__report
bash one-off/report-f.sh
