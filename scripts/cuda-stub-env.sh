# cuda-stub-env.sh — SOURCE this (bash): `source scripts/cuda-stub-env.sh`
#
# Builds (if needed) the link-only CUDA driver stub via scripts/cuda-stub.sh, quietly, and
# exports, prepended to what is already set:
#   CUDA_LIBRARY_PATH=<repo>/target/cuda-stub        (cust/cust_raw's build script links from <dir>/lib64)
#   LD_LIBRARY_PATH=<repo>/target/cuda-stub/lib64    (so binaries run here and fail with NoDevice)
# Why: lets `cargo build/test/run --features cuda` link and run on machines without CUDA.
# Do NOT source this on a machine with a real driver when you mean to run on the GPU: the stub
# on LD_LIBRARY_PATH would shadow the real libcuda.so.1.
#
# Being sourced, it deliberately does not `set -euo pipefail` (that would leak into the
# caller's shell); failures are checked explicitly and reported with `return 1`.

__gp_stub_src="${BASH_SOURCE[0]:-$0}"
__gp_stub_root="$(cd "$(dirname "$__gp_stub_src")/.." && pwd -P)" || return 1
if ! __gp_stub_out="$(bash "$__gp_stub_root/scripts/cuda-stub.sh" --quiet)"; then
  echo "cuda-stub-env.sh: scripts/cuda-stub.sh failed" >&2
  unset __gp_stub_src __gp_stub_root __gp_stub_out
  return 1 2>/dev/null || exit 1
fi
# cuda-stub.sh prints exactly "CUDA_LIBRARY_PATH=..." and "LD_LIBRARY_PATH=..." on stdout.
__gp_stub_cuda="$(printf '%s\n' "$__gp_stub_out" | sed -n 's/^CUDA_LIBRARY_PATH=//p')"
__gp_stub_ld="$(printf '%s\n' "$__gp_stub_out" | sed -n 's/^LD_LIBRARY_PATH=//p')"

case ":${CUDA_LIBRARY_PATH:-}:" in
  *":$__gp_stub_cuda:"*) ;;
  *) CUDA_LIBRARY_PATH="$__gp_stub_cuda${CUDA_LIBRARY_PATH:+:$CUDA_LIBRARY_PATH}" ;;
esac
case ":${LD_LIBRARY_PATH:-}:" in
  *":$__gp_stub_ld:"*) ;;
  *) LD_LIBRARY_PATH="$__gp_stub_ld${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;;
esac
export CUDA_LIBRARY_PATH LD_LIBRARY_PATH
unset __gp_stub_src __gp_stub_root __gp_stub_out __gp_stub_cuda __gp_stub_ld
