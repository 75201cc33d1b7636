// Operators with their identities, mirrored on the Rust side by gpu_core::Op and
// gpu_core::Monoid. Each operator is a functor bound to its value type:
//   typedef ... value_type;  static identity();  operator()(a, b) = a ∘ b (a first in order);
//   static constexpr bool commutative.
// Device-level kernels are templates over these; entry points are instantiated with the
// GP_FOR_EACH_* macros at the bottom so each (operator, type) gets a systematic name.
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

template <class T> struct Sum {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const { return Arith<T>::add(a, b); }
};

template <class T> struct Prod {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return T(1); }
    __device__ __forceinline__ T operator()(T a, T b) const { return Arith<T>::mul(a, b); }
};

// Min/Max: NaN propagates (as in PyTorch); of equal values the first is kept.
template <class T> struct Min {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return TypeTraits<T>::highest(); }
    __device__ __forceinline__ T operator()(T a, T b) const {
        // One select, no branches: a when a is NaN or not above b (b NaN fails a <= b).
        return (a <= b || is_nan(a)) ? a : b;
    }
};

template <class T> struct Max {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return TypeTraits<T>::lowest(); }
    __device__ __forceinline__ T operator()(T a, T b) const {
        return (a >= b || is_nan(a)) ? a : b;
    }
};

template <class T> struct BitAnd {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return (T)~(T)0; }
    __device__ __forceinline__ T operator()(T a, T b) const { return a & b; }
};

template <class T> struct BitOr {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a | b; }
};

template <class T> struct BitXor {
    typedef T value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ T identity() { return T(0); }
    __device__ __forceinline__ T operator()(T a, T b) const { return a ^ b; }
};

// Row-major 2x2 matrix, the sources' non-commutative example. Layout matches gpu_core::Mat2.
template <class T> struct Mat2 {
    T m[4];
};

template <class T> struct Mat2Product {
    typedef Mat2<T> value_type;
    static constexpr bool commutative = false;
    static __device__ __forceinline__ Mat2<T> identity() {
        Mat2<T> r;
        r.m[0] = T(1); r.m[1] = T(0); r.m[2] = T(0); r.m[3] = T(1);
        return r;
    }
    __device__ __forceinline__ Mat2<T> operator()(const Mat2<T>& a, const Mat2<T>& b) const {
        typedef Arith<T> A;
        Mat2<T> r;
        r.m[0] = A::add(A::mul(a.m[0], b.m[0]), A::mul(a.m[1], b.m[2]));
        r.m[1] = A::add(A::mul(a.m[0], b.m[1]), A::mul(a.m[1], b.m[3]));
        r.m[2] = A::add(A::mul(a.m[2], b.m[0]), A::mul(a.m[3], b.m[2]));
        r.m[3] = A::add(A::mul(a.m[2], b.m[1]), A::mul(a.m[3], b.m[3]));
        return r;
    }
};

// Affine map x -> a*x + b. Combining f then g gives x -> g(f(x)): (g.a*f.a, g.a*f.b + g.b).
// Layout matches gpu_core::Affine.
template <class T> struct Affine {
    T a, b;
};

template <class T> struct AffineCompose {
    typedef Affine<T> value_type;
    static constexpr bool commutative = false;
    static __device__ __forceinline__ Affine<T> identity() {
        Affine<T> r;
        r.a = T(1); r.b = T(0);
        return r;
    }
    __device__ __forceinline__ Affine<T> operator()(const Affine<T>& f, const Affine<T>& g) const {
        typedef Arith<T> A;
        Affine<T> r;
        r.a = A::mul(g.a, f.a);
        r.b = A::add(A::mul(g.a, f.b), g.b);
        return r;
    }
};

}  // namespace gp

// ---- Systematic instantiation -------------------------------------------------------------
// X(opname, OpTemplate, tname, T [, extra...]) is expanded once per supported combination, so
// an entry point named e.g. reduce_auto_##opname##_##tname exists for every (operator, type)
// the Rust side accepts: sum/prod/min/max on all six types, and/or/xor on the four integers.

#define GP_FOR_EACH_TYPE(X, opname, Op)                                                        \
    X(opname, Op, i32, gp::i32) X(opname, Op, u32, gp::u32) X(opname, Op, i64, gp::i64)        \
    X(opname, Op, u64, gp::u64) X(opname, Op, f32, gp::f32) X(opname, Op, f64, gp::f64)

#define GP_FOR_EACH_INT_TYPE(X, opname, Op)                                                    \
    X(opname, Op, i32, gp::i32) X(opname, Op, u32, gp::u32) X(opname, Op, i64, gp::i64)        \
    X(opname, Op, u64, gp::u64)

#define GP_FOR_EACH_OP_TYPE(X)                                                                 \
    GP_FOR_EACH_TYPE(X, sum, gp::Sum)                                                          \
    GP_FOR_EACH_TYPE(X, prod, gp::Prod)                                                        \
    GP_FOR_EACH_TYPE(X, min, gp::Min)                                                          \
    GP_FOR_EACH_TYPE(X, max, gp::Max)                                                          \
    GP_FOR_EACH_INT_TYPE(X, and, gp::BitAnd)                                                   \
    GP_FOR_EACH_INT_TYPE(X, or, gp::BitOr)                                                     \
    GP_FOR_EACH_INT_TYPE(X, xor, gp::BitXor)

// The arithmetic and ordering operators only (sum, prod, min, max), for the large fast-path
// kernels whose bitwise twins would cost more crate size than they are worth (bitwise scans
// take the general paths there); _4: the 4-byte types only (vectors of several values).
#define GP_FOR_EACH_ARITH_OP_TYPE(X)                                                           \
    GP_FOR_EACH_TYPE(X, sum, gp::Sum)                                                          \
    GP_FOR_EACH_TYPE(X, prod, gp::Prod)                                                        \
    GP_FOR_EACH_TYPE(X, min, gp::Min)                                                          \
    GP_FOR_EACH_TYPE(X, max, gp::Max)
#define GP_FOR_EACH_TYPE_4(X, opname, Op)                                                      \
    X(opname, Op, i32, gp::i32) X(opname, Op, u32, gp::u32) X(opname, Op, f32, gp::f32)
#define GP_FOR_EACH_ARITH_OP_TYPE_4(X)                                                         \
    GP_FOR_EACH_TYPE_4(X, sum, gp::Sum)                                                        \
    GP_FOR_EACH_TYPE_4(X, prod, gp::Prod)                                                      \
    GP_FOR_EACH_TYPE_4(X, min, gp::Min)                                                        \
    GP_FOR_EACH_TYPE_4(X, max, gp::Max)

// Non-commutative operators: X(opname, OpTemplate, tname, T) with opname mat2 / affine, so the
// entry point reads e.g. scan_lookback_inclusive_affine_f64.
#define GP_FOR_EACH_MONOID_TYPE(X)                                                             \
    GP_FOR_EACH_TYPE(X, mat2, gp::Mat2Product)                                                 \
    GP_FOR_EACH_TYPE(X, affine, gp::AffineCompose)
