#!/usr/bin/env bash
# Issue 24 session 4, call F (one H200), each step alone on the GPU: the H200's rows for the
# later issues. Long masks: peers_fft.py (PyTorch, CuPy) and bin conv1d-fft at 2^26, f32/f64,
# w 127 ... 16383. Half precision: peers.py and the report (--device-only) at 2^28, f16/bf16:
# sum, max, cumsum, conv1d w 7 and 127. Shapes: bin shapes --quick --no-conv, f32, three
# C-order shapes and the segment cases, as time allows.
set -u
cd "$(dirname "$0")/.."
tar -C gpu-carry2 -xJf gpu-carry2/f.tar.xz; C=gpu-carry2/f
R="$OUT/s4f"; mkdir -p "$R/logs"
T0=$(date +%s); left() { echo $(( ${DEADLINE:-390} - ($(date +%s) - T0) )); }
cap() { local t=$1 l; l=$(left); [ "$t" -lt "$l" ] && echo "$t" || echo $(( l > 5 ? l - 5 : 1 )); }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
s=$(date +%s); timeout $(cap 80) python3 scripts/peers_fft.py --log2 26 --widths 127,1023,4095,16383 --types f32 > "$R/peers-fft.tsv" 2> "$R/logs/peers-fft.log"; echo "peers_fft rc=$? $(( $(date +%s) - s ))s"; cat "$R/peers-fft.tsv"
s=$(date +%s); timeout $(cap 60) $C/benches__conv1d-fft --log2 26 --widths 127,1023,4095,16383 --types f32,f64 > "$R/conv1d-fft.tsv" 2> "$R/logs/conv1d-fft.log"; echo "conv1d-fft rc=$? $(( $(date +%s) - s ))s"; grep -iE "auto|copy" "$R/conv1d-fft.tsv" | head -20
s=$(date +%s); timeout $(cap 70) python3 scripts/peers.py --sizes 28 --types f16,bf16 --ops sum,max,cumsum,conv1d --widths 7,127 --out "$R/peers-half.json" > "$R/logs/peers-half.log" 2>&1; echo "peers half rc=$? $(( $(date +%s) - s ))s"
s=$(date +%s); timeout $(cap 100) $C/benches__report --device-only --only core,reduce,scan,conv1d --sizes 28 --types f16,bf16 --widths 7,127 --cpu-reps 1 --out "$R/report-half" --peers "$R/peers-half.json" > "$R/logs/report-half.log" 2>&1; echo "report half rc=$? $(( $(date +%s) - s ))s"
grep -E "\| (copy|auto) \|" "$R/report-half/report.md" | grep -vE "with copies|rayon" | cut -d'|' -f2-17 | head -30
if [ "$(left)" -gt 40 ]; then
  s=$(date +%s); timeout $(cap 150) $C/benches__shapes --quick --no-conv --types f32 --cases "16384x16384 C,4194304x64 C,64x4194304 C,segments" --out "$R/shapes" > "$R/logs/shapes.log" 2>&1; echo "shapes rc=$? $(( $(date +%s) - s ))s"
  grep -E "^\| " "$R/shapes/shapes.md" | head -40 || tail -20 "$R/logs/shapes.log"
fi
find "$R" -name "*.svg" -delete
(cd "$OUT" && tar czf s4f.tgz s4f && rm -rf s4f)
