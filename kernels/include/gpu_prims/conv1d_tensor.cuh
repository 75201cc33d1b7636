// What the tensor-core conv1d kernels (conv1d_sm80.cu: mma.sync; conv1d_sm90a.cu: wgmma) do
// per element type: values per product chunk and per 16-byte granule, and which inputs they
// cannot take (the structural zeros of the Toeplitz matrix multiply every staged input, and
// 0 * inf is NaN: a tile holding one is computed directly instead).
#pragma once
#include <gpu_prims/mma.cuh>
#include <gpu_prims/types.cuh>

namespace gp {

// x * 0 + acc over both halves of each word, in T's packed arithmetic: acc stays +0 while every
// value is finite and turns NaN at the first infinity or NaN (0 * inf is NaN, NaN propagates).
template <class T> struct PackedZeroFma;
template <> struct PackedZeroFma<gp::f16> {
    static __device__ __forceinline__ void run(u32& acc, u32 v) {
        asm("fma.rn.f16x2 %0, %1, %2, %0;" : "+r"(acc) : "r"(v), "r"(0u));
    }
};
template <> struct PackedZeroFma<gp::bf16> {
    static __device__ __forceinline__ void run(u32& acc, u32 v) {
        asm("fma.rn.bf16x2 %0, %1, %2, %0;" : "+r"(acc) : "r"(v), "r"(0u));
    }
};

template <class T> struct TensorPolicy {
    static constexpr int KC = 16;     // values of t per mma
    static constexpr int EPG = 8;     // elements per 16-byte granule
    static constexpr int SWIZZLE = 1; // granule XOR mask (line bits): 2 lines for 32-byte rows
    static constexpr int AREGS = 4;   // A-fragment registers per lane per chunk
    // Inputs the tensor-core product cannot take: inf and NaN.
    static __device__ __forceinline__ bool needs_direct(T x) { return gp::non_finite(x); }
    // The same for a 16-byte granule: one packed FMA per word (PackedZeroFma), four per granule
    // instead of three integer operations per value. `acc` starts at 0; any_direct(acc) at the end.
    static constexpr u32 CHECK_START = 0u;
    static __device__ __forceinline__ void collect(const uint4& v, u32& acc) {
        PackedZeroFma<T>::run(acc, v.x);
        PackedZeroFma<T>::run(acc, v.y);
        PackedZeroFma<T>::run(acc, v.z);
        PackedZeroFma<T>::run(acc, v.w);
    }
    static __device__ __forceinline__ bool any_direct(u32 acc) { return acc != 0u; }
};
template <> struct TensorPolicy<f32> {
    static constexpr int KC = 8;
    static constexpr int EPG = 4;
    static constexpr int SWIZZLE = 3;  // 4 lines for 64-byte rows
    static constexpr int AREGS = 8;    // TF32 hi and lo
    // inf, NaN, and magnitudes >= 2^127, whose TF32 high part may round to infinity.
    static __device__ __forceinline__ bool needs_direct(f32 x) {
        return (__float_as_uint(x) & 0x7f800000u) >= 0x7f000000u;
    }
    // Granules: bit 0 of `ok` cleared by any value needing the direct path.
    static constexpr u32 CHECK_START = 1u;
    static __device__ __forceinline__ void collect(const uint4& v, u32& ok) {
        ok &= !(needs_direct(__uint_as_float(v.x)) | needs_direct(__uint_as_float(v.y)) |
                needs_direct(__uint_as_float(v.z)) | needs_direct(__uint_as_float(v.w)));
    }
    static __device__ __forceinline__ bool any_direct(u32 ok) { return (ok & 1u) == 0; }
};

}  // namespace gp
