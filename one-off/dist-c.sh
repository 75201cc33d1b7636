#!/usr/bin/env bash
# Issue 23, call C (two GPUs): as call A, after the NCCL exchange lands its result only once
# the communicators are ready (call B: a group of two ranks is enqueued in the background,
# and the landing copy ran first); the weak table with a sum through a host exchange beside.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/dist.tar.xz; C=gpu-carry2/dist
R="$OUT/dist-c"; mkdir -p "$R"
export NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
nccl2="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)"
mkdir -p /tmp/nccl-lib && ln -sf "$nccl2" /tmp/nccl-lib/libnccl.so
export LD_LIBRARY_PATH="/tmp/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
NGPU="$(nvidia-smi -L | grep -c '^GPU')"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader > "$R/gpu.txt"
nvidia-smi topo -m > "$R/topo.txt" 2>&1
cat "$R/gpu.txt"; echo "NCCL_NVLS_ENABLE=$NCCL_NVLS_ENABLE"
export GPU_PRIMS_REQUIRE_GPU=1 GPU_PRIMS_REQUIRE_GPUS=$NGPU
timeout 60 $C/gpu-core__gpu copy_range_from --nocapture > "$R/core-gpu.log" 2>&1; echo "core rc=$? $(grep -E '^test result' "$R/core-gpu.log")"; grep -E "peer access|panicked" -A3 "$R/core-gpu.log" | head
for b in gpu-dist__gpu_dist gpu-dist__layout gpu-dist__gpu gpu-dist__nccl; do
  timeout 200 $C/$b --nocapture > "$R/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/$b.log" | tail -1)"
  grep -E "panicked|^(one process|[0-9]+ processes|rank 0: error)" -A3 "$R/$b.log" | head -12
done
timeout 200 $C/benches__dist --weak --log2 30 > "$R/dist-weak.md" 2> "$R/dist-weak.err"; echo "weak rc=$?"; cat "$R/dist-weak.md"; tail -3 "$R/dist-weak.err"
timeout 120 python3 $C/peers_dist.py --log2 30 > "$R/peers-dist.md" 2> "$R/peers-dist.log"; echo "peers rc=$?"; cat "$R/peers-dist.md"
