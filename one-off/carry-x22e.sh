#!/usr/bin/env bash
# Builds gpu-carry3/x22e.tar.xz (twenty-second session, call E) in two steps:
#   one-off/carry-x22e.sh final   gpu-conv1d's gpu and oom_gpu tests and the conv1d-fft bench of
#                                 8c1842f (the final kernels and size table)
#   one-off/carry-x22e.sh bf16    then, with one-off/fft-eo-bf16-pairs.patch applied and the PTX
#                                 rebuilt (PTX_ONLY=conv1d,conv1d_sm80 scripts/ptx.sh), that
#                                 build's fft_gpu and bench as bf16pairs__*, added to the pack
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
if [ "$1" = final ]; then
  carry_begin x22e
  (cargo test --release --features cuda -p gpu-conv1d --test gpu --test oom_gpu --no-run --message-format=json 2>/dev/null
   cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect x22e
else
  rm -rf gpu-carry2 && mkdir -p gpu-carry2 && tar -C gpu-carry2 -xJf gpu-carry3/x22e.tar.xz
  mkdir -p gpu-carry2/tmp
  (cargo test --release --features cuda -p gpu-conv1d --test fft_gpu --no-run --message-format=json 2>/dev/null
   cargo build --release -p gpu-prims-benches --features cuda --bin conv1d-fft --message-format=json 2>/dev/null) | carry_collect tmp
  for f in gpu-carry2/tmp/*; do mv "$f" "gpu-carry2/x22e/bf16pairs__$(basename "$f")"; done
  rmdir gpu-carry2/tmp
fi
ls -la gpu-carry2/x22e
carry_pack x22e
mkdir -p gpu-carry3 && rm -f gpu-carry3/*.tar.xz && mv gpu-carry2/x22e.tar.xz gpu-carry3/ && rm -rf gpu-carry2
