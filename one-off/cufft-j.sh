#!/usr/bin/env bash
# Issue 19, call J (one H100): the cuFFT path after even batches (a batch plan transformed all
# its slots: 66 segments ran as 126) and one circular transform for zero-ghost rows that fit;
# the sweep past the block FFT (no direct rows), the full correlation of 2^24, CuPy beside;
# then the FFT tests and the sanitizers over the cuFFT tests.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/i.tar.xz; C=gpu-carry2/i
R="$OUT/cufft-j"; mkdir -p "$R"
cf="$(python3 - <<'P'
import glob, os
c = []
for mod in ("nvidia.cufft", "nvidia.cu13", "nvidia"):
    try:
        m = __import__(mod, fromlist=["x"])
        for p in m.__path__:
            c += glob.glob(os.path.join(p, "lib", "libcufft.so*")) + glob.glob(os.path.join(p, "*", "lib", "libcufft.so*"))
    except Exception:
        pass
c += glob.glob("/usr/local/cuda*/lib64/libcufft.so*")
c = sorted(x for x in c if "cufftw" not in x)
print(c[0] if c else "")
P
)"
echo "libcufft: ${cf:-not found}" | tee "$R/cufft.txt"
mkdir -p /tmp/cufft-lib && [ -n "$cf" ] && ln -sf "$cf" /tmp/cufft-lib/libcufft.so
export LD_LIBRARY_PATH="/tmp/cufft-lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export GPU_PRIMS_REQUIRE_GPU=1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 $C/benches__conv1d-fft --log2 26 --types f32,f64 --widths 8191,15361,16383,65535 --no-direct-above 0 > "$R/sweep.tsv" 2> "$R/sweep.err"; echo "sweep rc=$?"; cat "$R/sweep.tsv"; tail -3 "$R/sweep.err"
timeout 60 $C/benches__conv1d-fft --full 24 > "$R/full.tsv" 2>> "$R/sweep.err"; echo "full rc=$?"; cat "$R/full.tsv"
timeout 120 python3 $C/peers_fft.py --log2 26 --types f32,f64 --widths 16383,65535 --torch-max 0 > "$R/peers.tsv" 2> "$R/peers.err"; echo "peers rc=$?"; cat "$R/peers.tsv"
timeout 60 python3 $C/peers_fft.py --full 24 > "$R/peers-full.tsv" 2>> "$R/peers.err"; echo "peers full rc=$?"; cat "$R/peers-full.tsv"; tail -3 "$R/peers.err"
for b in fft_gpu; do
  timeout 200 $C/gpu-conv1d__$b --test-threads=4 --nocapture > "$R/test-$b.log" 2>&1; echo "$b rc=$? $(grep -E '^test result' "$R/test-$b.log" | tail -1)"
  grep -E "panicked|cuFFT runs" -A4 "$R/test-$b.log" | head -16
done
for tool in memcheck racecheck synccheck; do
  timeout 150 compute-sanitizer --tool $tool $C/gpu-conv1d__fft_gpu gpu_cufft_every_mode > "$R/san-$tool.log" 2>&1; echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/san-$tool.log" | tail -1)"
done
