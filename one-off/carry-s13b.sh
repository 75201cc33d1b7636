#!/usr/bin/env bash
# Builds gpu-carry3/s13b.tar.xz (session 13, call B): gpu-scan's GPU test binaries, shapes and
# report of this build (8- and 16-byte look-back status split into epoch-tagged words), and
# shapes and report of a89a0e6 (built to /tmp/old-target first) as old__shapes, old__report.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s13b
(cargo test --release --features cuda -p gpu-scan --tests --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin shapes --bin report --message-format=json 2>/dev/null) | carry_collect s13b
cp /tmp/old-target/release/shapes gpu-carry2/s13b/old__shapes
cp /tmp/old-target/release/report gpu-carry2/s13b/old__report
rm -f gpu-carry2/s13b/gpu-scan__shaped_cpu gpu-carry2/s13b/gpu-scan__cpu gpu-carry2/s13b/gpu-scan__fault_injection gpu-carry2/s13b/gpu-scan__inputs gpu-carry2/s13b/gpu-scan__scan_builder gpu-carry2/s13b/gpu-scan__kernels
ls -la gpu-carry2/s13b
carry_pack s13b
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/s13b.tar.xz gpu-carry3/ && rm -rf gpu-carry2
