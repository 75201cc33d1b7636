#!/usr/bin/env bash
# ptx.sh — thin wrapper around scripts/ptx.py, the kernel build pipeline: compiles every
# kernels/<name>.cu to crates/gpu-<name>/src/ptx/<name>.ptx with NVRTC 12.0.76 (installed from
# PyPI into .tools/nvrtc on first use). No CUDA toolkit or GPU needed.
# Usage: scripts/ptx.sh [--check | --list]   (see scripts/ptx.py --help)
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)"
cd "$ROOT"
exec "${PYTHON:-python3}" "$ROOT/scripts/ptx.py" "$@"
