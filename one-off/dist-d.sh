#!/usr/bin/env bash
# Issue 22, call D (one H100): gpu-dist's tests on one GPU (every sharded algorithm with 1-16
# shards, NCCL with one rank) after the chained scan of shards sharing a device, then the
# one-GPU overhead table (`dist`: 2^28 f32 per shard, 1 and 8 shards, NCCL one rank against
# the in-process transport), nothing else on the GPU meanwhile.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/dist.tar.xz; C=gpu-carry2/dist
R="$OUT/dist-d"; mkdir -p "$R"
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
nccl2="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)"
mkdir -p /tmp/nccl-lib && ln -sf "$nccl2" /tmp/nccl-lib/libnccl.so
export LD_LIBRARY_PATH="/tmp/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$R/gpu.txt"
export GPU_PRIMS_REQUIRE_GPU=1
for b in gpu-core__gpu gpu-dist__gpu_dist gpu-dist__layout gpu-dist__gpu gpu-dist__nccl; do
  timeout 200 $C/$b --nocapture > "$R/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/$b.log" | tail -1)"
  grep -E "panicked|^SKIPPED" -A3 "$R/$b.log" | head -12
done
timeout 240 $C/benches__dist > "$R/dist-one-gpu.md" 2> "$R/dist-one-gpu.err"; echo "dist rc=$?"; cat "$R/dist-one-gpu.md"; tail -3 "$R/dist-one-gpu.err"
