#!/usr/bin/env bash
# Review call L (one H100): the review commit's gpu-conv1d fft_gpu and gpu tests (cuFFT path
# with gpu.rs's Shape, the shared transform check) and gpu-dist's tests (slots, NCCL checks).
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/r.tar.xz; C=gpu-carry2/r
R="$OUT/review-l"; mkdir -p "$R"
cf="$(ls /opt/torch/.venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcufft.so.* 2>/dev/null | head -1)"
mkdir -p /tmp/cufft-lib && ln -sf "$cf" /tmp/cufft-lib/libcufft.so
nccl2="$(python3 -c 'import nvidia.nccl, os; print(os.path.join(list(nvidia.nccl.__path__)[0], "lib", "libnccl.so.2"))' 2>/dev/null)"
mkdir -p /tmp/nccl-lib && ln -sf "$nccl2" /tmp/nccl-lib/libnccl.so
export LD_LIBRARY_PATH="/tmp/cufft-lib:/tmp/nccl-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPU_PRIMS_REQUIRE_GPU=1 NCCL_NVLS_ENABLE="${NCCL_NVLS_ENABLE:-0}"
for b in $(ls $C); do
  timeout 280 $C/$b --test-threads=4 > "$R/$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/$b.log" | tail -1)"
  grep -E "panicked" -A6 "$R/$b.log" | head -12
done
