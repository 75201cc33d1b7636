#!/usr/bin/env bash
# Builds gpu-carry2/s14e.tar.xz (issue 13 session 14, call E): gpu-conv1d's unit tests and
# kernels test (both fixed after call D) and the report bench.
set -euo pipefail
cd "$(dirname "$0")/.."
source one-off/carry-lib.sh
carry_begin s14e
(cargo test --release --features cuda,fault-injection -p gpu-conv1d --lib --test kernels --no-run --message-format=json 2>/dev/null
 cargo build --release -p gpu-prims-benches --features cuda --bin report --message-format=json 2>/dev/null) | carry_collect s14e
carry_pack s14e
