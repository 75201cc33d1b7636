// Kernels that fault on purpose, for tests/context_lost.rs: a last-block guard handed a
// counter pointer the caller chooses (null: an illegal address), and a trap. Built with
// scripts/ptx.sh into fault.ptx beside this file (plain PTX, test-only).
#include <gpu_prims/sync.cuh>

// Each block arrives at `counter`; the last one writes the block count to `out`. With a
// valid counter (zeroed) and `out` this is a correct guard; with counter = 0 the first
// atomic faults.
extern "C" __global__ void guard_at(unsigned int* counter, unsigned int* out) {
    if (gp::is_last_block(counter) && threadIdx.x == 0) {
        *out = gridDim.x;
    }
}

// Stops the kernel with a trap when `go` is non-zero.
extern "C" __global__ void trap_if(unsigned int go) {
    if (go) {
        __trap();
    }
}
