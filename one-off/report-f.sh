#!/usr/bin/env bash
# Issue 14, call R (one H100): PyTorch's host-to-host rows (peers.py sum_host, cumsum_host,
# conv1d_host), then the report's core, reduce, scan and conv1d groups at 2^28 i32 and f32
# (w 31) with them as peers: the host-link table's figures. Each alone on the GPU.
set -u
cd "$(dirname "$0")/.."
[ -d gpu-carry2/f3 ] || tar -C gpu-carry2 -xJf gpu-carry2/f3.tar.xz; C=gpu-carry2/f3
R="$OUT/report-f"; mkdir -p "$R/logs"
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | tee "$R/gpu.txt"
timeout 150 python3 scripts/peers.py --sizes 28 --types i32,f32 --ops sum_host,cumsum_host,conv1d_host --widths 31 --libs torch --out "$R/peers.json" > "$R/logs/peers.log" 2>&1; echo "peers rc=$?"
timeout 400 $C/benches__report --only core,reduce,scan,conv1d --sizes 28 --types i32,f32 --widths 31 --out "$R/report" --peers "$R/peers.json" > "$R/logs/report.log" 2>&1; echo "report rc=$?"
grep -E "from host|pinned|with copies|to host|host to" "$R/report/report.md" | head -60
(cd "$OUT" && tar czf report-f.tgz report-f && rm -rf report-f)
