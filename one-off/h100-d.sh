#!/usr/bin/env bash
# Issue 14, calls D1 and D2 (one H100): every test binary of carry d whose name matches one of
# the crate prefixes given, GPU_PRIMS_REQUIRE_GPU=1, one after another, alone on the GPU.
# Usage: one-off/h100-d.sh TAG PREFIX...   (e.g. d1 gpu-scan gpu-core gpu-sync benches): carry
# gpu-carry2/TAG.tar.xz (one-off/carry-d.sh builds gpu-carry2/d; split it by crate into d1, d2).
set -u
cd "$(dirname "$0")/.."
tag=$1; shift
[ -d gpu-carry2/$tag ] || tar -C gpu-carry2 -xJf gpu-carry2/$tag.tar.xz; C=gpu-carry2/$tag
R="$OUT/h100-$tag"; mkdir -p "$R/logs"
export GPU_PRIMS_REQUIRE_GPU=1 NCCL_NVLS_ENABLE=0
if ! ldconfig -p 2>/dev/null | grep -q 'libnccl\.so '; then
  n2="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)"
  [ -n "$n2" ] && mkdir -p /tmp/nccl-lib && ln -sf "$n2" /tmp/nccl-lib/libnccl.so && export LD_LIBRARY_PATH="/tmp/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > "$R/gpu.txt"
t0=$(date +%s)
P=0; F=0; I=0
for b in $(ls $C); do
  ok=0; for p in "$@"; do [[ $b == ${p}__* ]] && ok=1; done
  [ $ok = 1 ] || continue
  s=$(date +%s)
  timeout -k 10 300 $C/$b > "$R/logs/$b.log" 2>&1; rc=$?
  line=$(grep -E '^test result' "$R/logs/$b.log" | tail -1)
  p=$(grep -Eo '[0-9]+ passed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  f=$(grep -Eo '[0-9]+ failed' <<<"$line" | awk '{s+=$1} END {print s+0}')
  i=$(grep -Eo '[0-9]+ ignored' <<<"$line" | awk '{s+=$1} END {print s+0}')
  [ $rc -ne 0 ] && [ "$f" = 0 ] && f=1
  P=$((P+p)); F=$((F+f)); I=$((I+i))
  printf '%-45s rc=%-3s passed=%s failed=%s ignored=%s %ss\n' $b $rc $p $f $i $(( $(date +%s) - s )) | tee -a "$R/summary.txt"
  [ $rc -ne 0 ] && grep -E "panicked|FAILED" -A5 "$R/logs/$b.log" | head -12
done
echo "$P passed, $F failed, $I ignored; $(( $(date +%s) - t0 )) s" | tee -a "$R/summary.txt"
(cd "$OUT" && tar czf h100-$tag.tgz h100-$tag && rm -rf h100-$tag)
