// Reduction-specific value types and operators: argmin/argmax over (value, index) pairs, and
// the conversion from an input element to the accumulator type (identity, widening, or
// pairing with the element's index).
#pragma once
#include <gpu_prims/ops.cuh>

namespace gp {

// A value and the index it was read from: 16 bytes for every element type (value at byte 0,
// index at byte 8), a whole number of 32-bit words so it can be shuffled.
template <class T> struct alignas(8) ArgVal {
    T value;
    u64 index;
};
// Whether an accumulator carries the index of its value (the reduction must know each
// element's position).
template <class V> struct IsArgVal {
    static constexpr bool value = false;
};
template <class T> struct IsArgVal<ArgVal<T>> {
    static constexpr bool value = true;
};

// argmin / argmax: the first extreme value, PyTorch semantics for NaN (a NaN is "more extreme"
// than any number, so the result is the first NaN if there is one). Defined as a total order
// on (NaN-ness, value, index), so the operator is commutative as well as associative: any
// reduction order gives the same pair.
template <class T> struct ArgMin {
    typedef ArgVal<T> value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ ArgVal<T> identity() {
        ArgVal<T> r;
        r.value = TypeTraits<T>::highest();
        r.index = ~0ull;
        return r;
    }
    __device__ __forceinline__ ArgVal<T> operator()(const ArgVal<T>& a, const ArgVal<T>& b) const {
        const bool an = is_nan(a.value), bn = is_nan(b.value);
        if (an != bn) return an ? a : b;
        if (!an) {
            if (b.value < a.value) return b;
            if (a.value < b.value) return a;
        }
        return b.index < a.index ? b : a;
    }
};

template <class T> struct ArgMax {
    typedef ArgVal<T> value_type;
    static constexpr bool commutative = true;
    static __device__ __forceinline__ ArgVal<T> identity() {
        ArgVal<T> r;
        r.value = TypeTraits<T>::lowest();
        r.index = ~0ull;
        return r;
    }
    __device__ __forceinline__ ArgVal<T> operator()(const ArgVal<T>& a, const ArgVal<T>& b) const {
        const bool an = is_nan(a.value), bn = is_nan(b.value);
        if (an != bn) return an ? a : b;
        if (!an) {
            if (b.value > a.value) return b;
            if (a.value > b.value) return a;
        }
        return b.index < a.index ? b : a;
    }
};

// Input element `x` found at index `i`, as the accumulator type V: a plain conversion (the
// widening i32 -> i64, u32 -> u64, f32 -> f64, exact), the identity, or the (x, i) pair.
template <class In, class V> struct ReduceConvert {
    static __device__ __forceinline__ V apply(In x, u64) { return (V)x; }
};
template <class V> struct ReduceConvert<V, V> {
    static __device__ __forceinline__ V apply(const V& x, u64) { return x; }
};
template <class T> struct ReduceConvert<T, ArgVal<T>> {
    static __device__ __forceinline__ ArgVal<T> apply(T x, u64 i) {
        ArgVal<T> r;
        r.value = x;
        r.index = i;
        return r;
    }
};
// 16-bit floats are read into f32, alone or paired with their index (exact: every f16 and
// bf16 value is an f32 value).
template <> struct ReduceConvert<f16, f32> {
    static __device__ __forceinline__ f32 apply(f16 x, u64) { return to_f32(x); }
};
template <> struct ReduceConvert<bf16, f32> {
    static __device__ __forceinline__ f32 apply(bf16 x, u64) { return to_f32(x); }
};
template <class H> struct ReduceConvertHalfArg {
    static __device__ __forceinline__ ArgVal<f32> apply(H x, u64 i) {
        ArgVal<f32> r;
        r.value = to_f32(x);
        r.index = i;
        return r;
    }
};
template <> struct ReduceConvert<f16, ArgVal<f32>> : ReduceConvertHalfArg<f16> {};
template <> struct ReduceConvert<bf16, ArgVal<f32>> : ReduceConvertHalfArg<bf16> {};

// The inverse for scans: a computed value written as an element of the output, itself, or
// (16-bit floats computed in f32) rounded once to nearest even.
template <class Out, class V> struct ElementOut;
template <class V> struct ElementOut<V, V> {
    static __device__ __forceinline__ V apply(const V& v) { return v; }
};
template <> struct ElementOut<f16, f32> {
    static __device__ __forceinline__ f16 apply(f32 v) { return from_f32<f16>(v); }
};
template <> struct ElementOut<bf16, f32> {
    static __device__ __forceinline__ bf16 apply(f32 v) { return from_f32<bf16>(v); }
};

}  // namespace gp
