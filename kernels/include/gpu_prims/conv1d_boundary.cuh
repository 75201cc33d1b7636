// Boundary extension for 1-D stencils: which element of a row of n elements a read at position
// p (any 64-bit integer, far outside the row included) sees. Names follow scipy.ndimage; the
// codes are mirrored by gpu_conv1d::Boundary on the Rust side.
//
//   ZERO     ghost elements are 0                      (ndimage 'constant', cval 0; numpy's padding)
//   NEAREST  clamp to the first / last element         (ndimage 'nearest'; "replicate", "clamp")
//   REFLECT  half-sample symmetric, period 2n: d c b a | a b c d | d c b a
//            (ndimage 'reflect' = numpy.pad 'symmetric')
//   MIRROR   whole-sample symmetric, period 2n-2: d c b | a b c d | c b a
//            (ndimage 'mirror' = numpy.pad 'reflect'); a row of one element repeats it
//   WRAP     periodic, period n: a b c d | a b c d | a b c d  (ndimage 'wrap')
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

enum Conv1dBoundary : int {
    CONV1D_ZERO = 0,
    CONV1D_NEAREST = 1,
    CONV1D_REFLECT = 2,
    CONV1D_MIRROR = 3,
    CONV1D_WRAP = 4,
};

// a mod m in [0, m) for m > 0, whatever the sign of a.
__device__ __forceinline__ i64 floor_mod(i64 a, i64 m) {
    const i64 r = a % m;
    return r < 0 ? r + m : r;
}

// The index in [0, n) that position p reads, or -1 for a zero ghost element. Requires n >= 1.
__device__ __forceinline__ i64 boundary_index(i64 p, i64 n, int mode) {
    if (p >= 0 && p < n) return p;
    if (mode == CONV1D_NEAREST) return p < 0 ? 0 : n - 1;
    if (mode == CONV1D_REFLECT) {
        const i64 m = floor_mod(p, 2 * n);
        return m < n ? m : 2 * n - 1 - m;
    }
    if (mode == CONV1D_MIRROR) {
        if (n == 1) return 0;
        const i64 m = floor_mod(p, 2 * n - 2);
        return m < n ? m : 2 * n - 2 - m;
    }
    if (mode == CONV1D_WRAP) return floor_mod(p, n);
    return -1;  // CONV1D_ZERO
}

// The value position p of `row` (n elements) reads under `mode`.
template <class T>
__device__ __forceinline__ T boundary_load(const T* __restrict__ row, i64 p, i64 n, int mode) {
    const i64 q = boundary_index(p, n, mode);
    return q < 0 ? T() : row[q];  // T(): +0 for every element type, the 16-bit structs too
}

}  // namespace gp
