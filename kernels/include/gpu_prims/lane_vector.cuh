// K neighbouring lanes as one value: the columns of a dense row-major array with K columns
// (or any lanes K side by side, one row of them every K elements) are, read row by row, one
// flat array of K-wide vectors. Scanning that array with the operator applied lane by lane
// scans every column at once, so a few columns take the flat single-pass scan (register tiles,
// one decoupled look-back for all of them) instead of a per-column two-pass plan.
#pragma once
#include <gpu_prims/ops.cuh>

namespace gp {

// K values of one row, aligned to their size so a whole vector is one load of K·sizeof(T)
// bytes (the flat scan's vector loads then carry 16 / (K·sizeof(T)) rows each).
template <class T, int K> struct alignas(sizeof(T) * K) LaneVec {
    T v[K];
};

// `Op` applied lane by lane. Same identity, same algebra per lane, so a scan of LaneVecs is K
// independent scans; non-commutative monoids would work too, but only scalar operators use it.
template <class Op, int K> struct Lanewise {
    typedef LaneVec<typename Op::value_type, K> value_type;
    static constexpr bool commutative = Op::commutative;
    static __device__ __forceinline__ value_type identity() {
        value_type r;
#pragma unroll
        for (int k = 0; k < K; ++k) r.v[k] = Op::identity();
        return r;
    }
    __device__ __forceinline__ value_type operator()(const value_type& a,
                                                     const value_type& b) const {
        Op op;
        value_type r;
#pragma unroll
        for (int k = 0; k < K; ++k) r.v[k] = op(a.v[k], b.v[k]);
        return r;
    }
};

}  // namespace gp
