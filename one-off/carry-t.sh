#!/usr/bin/env bash
# Builds gpu-carry2/t.tar.xz (issue 24, call T on nvidia-h200): the tuning tool and the four
# tuning test binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin t
(for c in gpu-core gpu-scan gpu-reduce gpu-conv1d; do
   cargo test -p $c --release --features cuda --test tuning_gpu --no-run --message-format=json 2>/dev/null
 done
 cargo build --release -p gpu-prims-benches --features cuda --bin tune --message-format=json 2>/dev/null) |
  carry_collect t
carry_pack t
