// Block-wide scan with the double-buffered Hillis–Steele (Kogge–Stone) algorithm: one value per
// thread, log2(blockDim.x) steps, each step combining a value with the one `offset` places
// before it. Reads and writes of a step go to different halves of the buffer, so no thread
// overwrites a value another thread still has to read in that step. O(n log n) work: the
// teaching baseline of the scan family (the report's "double buffer" scan).
#pragma once
#include <gpu_prims/ops.cuh>

namespace gp {

// Inclusive scan of one value per thread over the block, in thread order (correct for
// non-commutative operators: the earlier value is always the left operand).
//   buf:   2 * blockDim.x values of shared memory (the two buffers).
//   Returns thread i's inclusive value x0 ∘ ... ∘ xi; *exclusive gets x0 ∘ ... ∘ x(i-1)
//   (the identity for thread 0).
// Every thread of the block must call it (it contains __syncthreads()); blockDim.x any size.
// The buffer may be reused after a __syncthreads() following the call.
template <class Op> __device__ __forceinline__ typename Op::value_type
block_scan_hillis_steele(typename Op::value_type x, Op op, typename Op::value_type* buf,
                         typename Op::value_type* exclusive) {
    typedef typename Op::value_type T;
    const unsigned tid = threadIdx.x, n = blockDim.x;
    T* read = buf;
    T* write = buf + n;
    read[tid] = x;
    __syncthreads();
    for (unsigned offset = 1; offset < n; offset <<= 1) {
        T v = read[tid];
        if (tid >= offset) v = op(read[tid - offset], v);
        write[tid] = v;
        __syncthreads();  // the step's writes are complete before anyone reads them
        T* t = read;
        read = write;
        write = t;
    }
    *exclusive = tid == 0 ? Op::identity() : read[tid - 1];
    return read[tid];
}

}  // namespace gp
