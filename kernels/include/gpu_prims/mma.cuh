// Warp-level tensor-core pieces (compute capability 8.0+; included only by *_sm80.cu modules):
// ldmatrix from shared memory, the m16n8k16 product of 16-bit floats and the m16n8k8 product of
// TF32 values, both with f32 accumulation, and the TF32 split of an f32. Fragment layouts are the
// PTX ISA's ("Matrix fragments for mma.m16n8k16 / m16n8k8"): with g = lane / 4, q = lane % 4,
//   m16n8k16, 16-bit (two values per register, the lower index in the low half):
//     A (16x16, row): a[0] = A[g][2q..2q+1], a[1] = A[g+8][2q..2q+1],
//                     a[2] = A[g][2q+8..+9], a[3] = A[g+8][2q+8..+9]
//     B (16x8, col):  b[0] = B[2q..2q+1][g], b[1] = B[2q+8..2q+9][g]
//   m16n8k8, TF32 (one value per register):
//     A (16x8, row):  a[0] = A[g][q], a[1] = A[g+8][q], a[2] = A[g][q+4], a[3] = A[g+8][q+4]
//     B (8x8, col):   b[0] = B[q][g], b[1] = B[q+4][g]
//   C/D (16x8, f32): d[0..1] = D[g][2q..2q+1], d[2..3] = D[g+8][2q..2q+1]
#pragma once
#include <gpu_prims/async_copy.cuh>  // shared_address
#include <gpu_prims/types.cuh>

namespace gp {

// Four 8x8 matrices of 16-bit values from shared memory: lanes 8i..8i+7 give the addresses of
// the eight 16-byte rows of matrix i; register i of every lane receives its two elements of
// matrix i (row lane / 4, columns 2 (lane % 4) and + 1).
__device__ __forceinline__ void ldmatrix_x4(u32 (&r)[4], u32 address) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(address));
}

// d += A * B, m16n8k16, 16-bit A and B of type T (f16 or bf16), f32 accumulators.
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

// d += A * B, m16n8k8, TF32 A and B (f32 bit patterns with the low 13 mantissa bits zero).
__device__ __forceinline__ void mma_1688_tf32(f32 (&d)[4], const u32 (&a)[4], u32 b0, u32 b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, "
        "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// x as a TF32 high part plus a TF32 low part (x - hi, rounded): hi * y + lo * y recovers x * y to
// about 2^-22 relative, the basis of error-compensated ("3xTF32") products.
__device__ __forceinline__ void split_tf32(f32 x, u32& hi, u32& lo) {
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(hi) : "f"(x));
    const f32 rest = x - __uint_as_float(hi);
    asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(lo) : "f"(rest));
}

// Whether a 16-bit float is infinite or NaN (all exponent bits set).
__device__ __forceinline__ bool non_finite(f16 x) { return (x.bits & 0x7c00u) == 0x7c00u; }
__device__ __forceinline__ bool non_finite(bf16 x) { return (x.bits & 0x7f80u) == 0x7f80u; }

}  // namespace gp
