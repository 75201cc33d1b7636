// Warp-level tensor-core pieces (compute capability 8.0+; included only by *_sm80.cu modules):
// ldmatrix from shared memory and the m16n8k16 matrix product of 16-bit floats with f32
// accumulation. Fragment layouts are the PTX ISA's ("Matrix fragments for mma.m16n8k16"):
// with g = lane / 4 and q = lane % 4,
//   A (16x16, row-major): a[0] = A[g][2q..2q+1],   a[1] = A[g+8][2q..2q+1],
//                         a[2] = A[g][2q+8..+9],   a[3] = A[g+8][2q+8..+9]
//   B (16x8, "col"):      b[0] = B[2q..2q+1][g],   b[1] = B[2q+8..2q+9][g]
//   C/D (16x8, f32):      d[0..1] = D[g][2q..2q+1], d[2..3] = D[g+8][2q..2q+1]
// (two 16-bit values per 32-bit register, the lower index in the low half).
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

// The 32-bit shared-memory address of a generic pointer into shared memory.
__device__ __forceinline__ u32 shared_address(const void* p) {
    return (u32)__cvta_generic_to_shared(p);
}

// Four 8x8 matrices of 16-bit values from shared memory: lanes 8i..8i+7 give the addresses of
// the eight 16-byte rows of matrix i; register i of every lane receives its two elements of
// matrix i (row lane / 4, columns 2 (lane % 4) and + 1).
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

// d += A * B for one 16x16 A and 16x8 B of the element type T (f16 or bf16), f32 accumulators.
template <class T> struct Mma16816;
template <> struct Mma16816<f16> {
    static __device__ __forceinline__ void run(f32 (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};
template <> struct Mma16816<bf16> {
    static __device__ __forceinline__ void run(f32 (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, "
            "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
};

// Whether a 16-bit float is infinite or NaN (all exponent bits set).
__device__ __forceinline__ bool non_finite(f16 x) { return (x.bits & 0x7c00u) == 0x7c00u; }
__device__ __forceinline__ bool non_finite(bf16 x) { return (x.bits & 0x7f80u) == 0x7f80u; }

}  // namespace gp
