// Copies of N-D arrays between layouts (any shape, any element strides on either side): the
// gather behind a row-major copy of a transposed view, and the scatter of row-major results
// into an output of another layout. The Rust side merges axes that are contiguous on both
// sides, so most copies reach the kernel with 1 to 3 axes.
//
// Two paths, chosen by the Rust side:
//   copy_layout_rows  one axis (`b`) walked by consecutive threads: coalesced on both sides
//                     when it has unit stride on both (a reversed or sliced copy), or on one
//   copy_layout_tiles the source's unit-stride axis `a` differs from the destination's `b`
//                     (a transpose): 32 x 32 tiles staged in shared memory, read along `a`,
//                     written along `b`, both coalesced
// Indices are 64-bit; strides are signed.
#pragma once
#include <gpu_prims/load.cuh>

namespace gp {

constexpr int LAYOUT_MAX_DIMS = 8;
constexpr unsigned LAYOUT_TILE = 32;
constexpr unsigned LAYOUT_ROWS_PER_PASS = 8;  // a tile block is 32 x 8 threads

// The copy as the Rust side passes it (by value).
struct CopyLayout {
    u32 ndim;
    u32 a;     // the source's unit-stride axis (tiles), or the walked axis (rows)
    u32 b;     // the destination's unit-stride axis (tiles), or the walked axis (rows)
    u32 unused;
    u64 shape[LAYOUT_MAX_DIMS];
    i64 src[LAYOUT_MAX_DIMS];
    i64 dst[LAYOUT_MAX_DIMS];
};

// Offsets (source, destination) of index `r` over every axis except `skip_a` and `skip_b`
// (row-major over the remaining axes).
__device__ __forceinline__ void layout_offsets(const CopyLayout& L, u64 r, u32 skip_a, u32 skip_b,
                                               i64* so, i64* dof) {
    i64 s = 0, d = 0;
    for (int k = (int)L.ndim - 1; k >= 0; --k) {
        if ((u32)k == skip_a || (u32)k == skip_b) continue;
        const u64 n = L.shape[k];
        const u64 i = r % n;
        r /= n;
        s += (i64)i * L.src[k];
        d += (i64)i * L.dst[k];
    }
    *so = s;
    *dof = d;
}

// Rows along axis b: each block takes `per_block` consecutive rows of the other axes, with
// the block's threads spread over rows x positions (short rows share a block).
template <class T>
__device__ __forceinline__ void copy_layout_rows(const T* __restrict__ src, T* __restrict__ dst,
                                                 CopyLayout L, u64 rows, u32 width) {
    const u64 n = L.shape[L.b];
    const i64 ss = L.src[L.b], ds = L.dst[L.b];
    const u32 per_block = blockDim.x / width;
    const u32 sub = threadIdx.x / width, pos = threadIdx.x % width;
    for (u64 r0 = (u64)blockIdx.x * per_block; r0 < rows; r0 += (u64)gridDim.x * per_block) {
        const u64 r = r0 + sub;
        if (r >= rows) continue;
        i64 so, dof;
        layout_offsets(L, r, L.b, L.b, &so, &dof);
        for (u64 j = pos; j < n; j += width) dst[dof + (i64)j * ds] = src[so + (i64)j * ss];
    }
}

// 32 x 32 tiles of the (a, b) plane, one per block and step, for every index of the other
// axes. Reads: threadIdx.x along a; writes: threadIdx.x along b.
template <class T>
__device__ __forceinline__ void copy_layout_tiles(const T* __restrict__ src, T* __restrict__ dst,
                                                  CopyLayout L) {
    __shared__ T tile[LAYOUT_TILE][LAYOUT_TILE + 1];
    const u64 na = L.shape[L.a], nb = L.shape[L.b];
    const u64 ta = (na + LAYOUT_TILE - 1) / LAYOUT_TILE, tb = (nb + LAYOUT_TILE - 1) / LAYOUT_TILE;
    u64 rest = 1;
    for (u32 k = 0; k < L.ndim; ++k)
        if (k != L.a && k != L.b) rest *= L.shape[k];
    const u64 tiles = ta * tb * rest;
    const u32 tx = threadIdx.x % LAYOUT_TILE, ty = threadIdx.x / LAYOUT_TILE;
    for (u64 t = blockIdx.x; t < tiles; t += gridDim.x) {
        const u64 ia = (t % ta) * LAYOUT_TILE;
        const u64 ib = ((t / ta) % tb) * LAYOUT_TILE;
        i64 so, dof;
        layout_offsets(L, t / (ta * tb), L.a, L.b, &so, &dof);
        // Read: x along a (unit source stride), rows of b.
        for (u32 y = ty; y < LAYOUT_TILE; y += LAYOUT_ROWS_PER_PASS) {
            const u64 i = ia + tx, j = ib + y;
            if (i < na && j < nb) tile[y][tx] = src[so + (i64)i * L.src[L.a] + (i64)j * L.src[L.b]];
        }
        __syncthreads();
        // Write: x along b (unit destination stride), rows of a.
        for (u32 y = ty; y < LAYOUT_TILE; y += LAYOUT_ROWS_PER_PASS) {
            const u64 i = ia + y, j = ib + tx;
            if (i < na && j < nb) dst[dof + (i64)i * L.dst[L.a] + (i64)j * L.dst[L.b]] = tile[tx][y];
        }
        __syncthreads();
    }
}

}  // namespace gp
