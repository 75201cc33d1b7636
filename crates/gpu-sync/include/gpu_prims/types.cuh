// Element-type traits shared by every kernel: fixed-width names, limits, and the unsigned twin
// used for wrapping arithmetic (signed overflow is undefined in C++, wrapping is our contract).
#pragma once

namespace gp {

typedef int i32;
typedef unsigned int u32;
typedef long long i64;
typedef unsigned long long u64;
typedef float f32;
typedef double f64;

template <class T> struct TypeTraits;

template <> struct TypeTraits<i32> {
    typedef u32 Unsigned;
    static constexpr bool is_float = false;
    static __device__ __forceinline__ i32 lowest() { return (i32)0x80000000u; }
    static __device__ __forceinline__ i32 highest() { return 0x7fffffff; }
};
template <> struct TypeTraits<u32> {
    typedef u32 Unsigned;
    static constexpr bool is_float = false;
    static __device__ __forceinline__ u32 lowest() { return 0u; }
    static __device__ __forceinline__ u32 highest() { return 0xffffffffu; }
};
template <> struct TypeTraits<i64> {
    typedef u64 Unsigned;
    static constexpr bool is_float = false;
    static __device__ __forceinline__ i64 lowest() { return (i64)0x8000000000000000ull; }
    static __device__ __forceinline__ i64 highest() { return 0x7fffffffffffffffll; }
};
template <> struct TypeTraits<u64> {
    typedef u64 Unsigned;
    static constexpr bool is_float = false;
    static __device__ __forceinline__ u64 lowest() { return 0ull; }
    static __device__ __forceinline__ u64 highest() { return 0xffffffffffffffffull; }
};
template <> struct TypeTraits<f32> {
    static constexpr bool is_float = true;
    static __device__ __forceinline__ f32 lowest() { return __int_as_float(0xff800000); }   // -inf
    static __device__ __forceinline__ f32 highest() { return __int_as_float(0x7f800000); }  // +inf
};
template <> struct TypeTraits<f64> {
    static constexpr bool is_float = true;
    static __device__ __forceinline__ f64 lowest() { return __longlong_as_double(0xfff0000000000000ll); }
    static __device__ __forceinline__ f64 highest() { return __longlong_as_double(0x7ff0000000000000ll); }
};

// a + b and a * b that wrap for integers, plain IEEE for floats.
template <class T, bool F = TypeTraits<T>::is_float> struct Arith {
    typedef typename TypeTraits<T>::Unsigned U;
    static __device__ __forceinline__ T add(T a, T b) { return (T)((U)a + (U)b); }
    static __device__ __forceinline__ T mul(T a, T b) { return (T)((U)a * (U)b); }
};
template <class T> struct Arith<T, true> {
    static __device__ __forceinline__ T add(T a, T b) { return a + b; }
    static __device__ __forceinline__ T mul(T a, T b) { return a * b; }
};

template <class T> __device__ __forceinline__ bool is_nan(T x) { return x != x; }

// ---- 16-bit floats: storage only -----------------------------------------------------------
// f16 (IEEE binary16) and bf16 (bfloat16) are stored as their bits and computed in f32, the
// accumulator type of both (as PyTorch accumulates them): every f16 and bf16 value is exact
// in f32, so min/max/argmin/argmax in f32 are exact in the element type. Own structs instead
// of cuda_fp16.h: NVRTC needs no extra headers, and only the conversions below are used.
struct alignas(2) f16 {
    unsigned short bits;
};
struct alignas(2) bf16 {
    unsigned short bits;
};

// The type a kernel computes in for elements of type T: T, except f32 for f16 and bf16.
template <class T> struct Accumulator { typedef T type; };
template <> struct Accumulator<f16> { typedef f32 type; };
template <> struct Accumulator<bf16> { typedef f32 type; };

__device__ __forceinline__ f32 to_f32(f16 x) {
    f32 r;
    asm("cvt.f32.f16 %0, %1;" : "=f"(r) : "h"(x.bits));
    return r;
}
__device__ __forceinline__ f32 to_f32(bf16 x) { return __uint_as_float((u32)x.bits << 16); }

// f32 to the 16-bit types, rounded to nearest even (NaN stays NaN, overflow gives infinity).
template <class T> __device__ __forceinline__ T from_f32(f32 x);
template <> __device__ __forceinline__ f16 from_f32<f16>(f32 x) {
    f16 r;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
    return r;
}
template <> __device__ __forceinline__ bf16 from_f32<bf16>(f32 x) {
    bf16 r;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    // Modules built for compute_80+ (the *_sm80.cu files) have the instruction: one conversion
    // instead of seven integer operations. NaN comes out as a (canonical) NaN.
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r.bits) : "f"(x));
#else
    // cvt.rn.bf16.f32 needs sm_80; the same rounding by hand works on compute_70.
    const u32 b = __float_as_uint(x);
    if (is_nan(x)) {
        r.bits = (unsigned short)((b >> 16) | 0x0040u);  // quiet NaN, sign kept
    } else {
        r.bits = (unsigned short)((b + 0x7fffu + ((b >> 16) & 1u)) >> 16);
    }
#endif
    return r;
}

// An element read into its accumulator type (exact), and an accumulator written back as an
// element (rounded once, to nearest even, for the 16-bit floats; the identity otherwise).
__device__ __forceinline__ f32 widen(f32 x) { return x; }
__device__ __forceinline__ f64 widen(f64 x) { return x; }
__device__ __forceinline__ f32 widen(f16 x) { return to_f32(x); }
__device__ __forceinline__ f32 widen(bf16 x) { return to_f32(x); }
template <class T> __device__ __forceinline__ T narrow(typename Accumulator<T>::type a) {
    return from_f32<T>(a);
}
template <> __device__ __forceinline__ f32 narrow<f32>(f32 a) { return a; }
template <> __device__ __forceinline__ f64 narrow<f64>(f64 a) { return a; }

// An f32 result written as `Out`: itself, or rounded to a 16-bit float.
template <class Out> struct FromF32 {
    static __device__ __forceinline__ Out apply(f32 x) { return from_f32<Out>(x); }
};
template <> struct FromF32<f32> {
    static __device__ __forceinline__ f32 apply(f32 x) { return x; }
};

}  // namespace gp
