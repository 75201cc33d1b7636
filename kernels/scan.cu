// Prefix scans (gpu-scan). Thin entry points over the layered headers:
//   block_scan_hillis_steele.cuh  double-buffer scan of one block (the report's first GPU scan)
//   block_scan_blelloch.cuh       work-efficient scan of one block, optionally padded
//   scan_lookback.cuh             the single-pass decoupled look-back scan (the default), over
//                                 scan_tile.cuh (the tile) and lookback.cuh (the inter-tile half)
//
// Naming: scan_<algorithm>_<op>_<type>, e.g. scan_lookback_sum_f32, scan_blelloch_padded_mat2_u32.
// Inclusive or exclusive is a runtime argument (`exclusive`), not part of the name: one
// instantiation serves both forms, which halves the PTX, and Rust derives every name from
// (algorithm, operator, type) alone.
//
// Shaped data (gpu_prims/lanes.cuh): scan_axis_<op>_<type> scans every lane of an axis of an
// N-D array (input and output lanes described separately); a lane too long for one block is
// cut into splits whose seeds come from scan_axis_totals_<op>_<type> (the splits' totals) and
// an exclusive scan_axis pass over those totals. scan_segment_tiles_<op>_<type> scans every
// segment of a flat array, read as flat register tiles (gpu_prims/segment_tiles.cuh). scan_packed_<op>_<type> scans the rows of a
// packed array (n = 2^log2n <= 32 vectors) as a flat pass. scan_columns_<op>_<type> scans lanes
// side by side in memory as 16-byte vectors of neighbouring lanes, in one pass with a look-back
// over spans of rows (scan_columns_long_<op>_<type>: spans four times longer, for few tiles of
// many spans; sum, prod, min, max), scan_columns_short_<op>_<type> such lanes of up to 8 vector
// rows, a thread each (gpu_prims/lanes_columns.cuh; scalar types).
//
// Every length is a u64 and every global index is computed in 64 bits. n = 0 is never launched
// (the Rust side returns early). Inputs and outputs may be the same array (in-place scans): each
// block reads all of its elements before writing any, and no block reads another's elements.
#include <gpu_prims/block_scan_blelloch.cuh>
#include <gpu_prims/block_scan_hillis_steele.cuh>
#include <gpu_prims/lanes.cuh>
#include <gpu_prims/lanes_columns.cuh>
#include <gpu_prims/scan_lookback.cuh>
#include <gpu_prims/segment_tiles.cuh>

// Every kernel may be launched with up to 1024 threads per block (the block-size sweep).
#define SCAN_MAX_THREADS 1024

extern __shared__ __align__(16) unsigned char scan_dynamic_smem[];

// =============================================================================================
// TEACHING: the source documents' scans (Hillis–Steele, Blelloch, padded Blelloch), selectable
//           by name, never chosen by Algorithm::Auto.
// =============================================================================================

// ---- Multi-block scheme of the report (Hillis–Steele, Blelloch, padded Blelloch) ------------
// Block b scans elements [b·E, (b+1)·E) (E = blockDim.x, or 2·blockDim.x for Blelloch) and
// writes its total to sums[b]; the host scans `sums` recursively (exclusive, in place) and
// scan_add_block_sums adds sums[b] in front of block b's elements (the report's finalAdd).
// `sums` may be null when there is a single block. Padding past n is the identity.

template <class Op>
__device__ __forceinline__ void hillis_steele_blocks(const typename Op::value_type* in,
                                                     typename Op::value_type* out,
                                                     typename Op::value_type* sums, gp::u64 n,
                                                     gp::u32 exclusive) {
    typedef typename Op::value_type T;
    T* buf = reinterpret_cast<T*>(scan_dynamic_smem);  // 2 · blockDim.x values
    const gp::u64 i = (gp::u64)blockIdx.x * blockDim.x + threadIdx.x;
    T x = i < n ? in[i] : Op::identity();
    T before;
    T incl = gp::block_scan_hillis_steele(x, Op(), buf, &before);
    if (i < n) out[i] = exclusive ? before : incl;
    if (sums != nullptr && threadIdx.x == blockDim.x - 1) sums[blockIdx.x] = incl;
}

template <class Op, bool PAD>
__device__ __forceinline__ void blelloch_blocks(const typename Op::value_type* in,
                                                typename Op::value_type* out,
                                                typename Op::value_type* sums, gp::u64 n,
                                                gp::u32 exclusive) {
    typedef typename Op::value_type T;
    T* s = reinterpret_cast<T*>(scan_dynamic_smem);  // blelloch_slots<PAD>(2 · blockDim.x) values
    const unsigned tid = threadIdx.x, b = blockDim.x;
    const gp::u64 base = (gp::u64)blockIdx.x * (2 * b);
    // Elements tid and tid + b of the block: coalesced loads and stores.
    const gp::u64 i0 = base + tid, i1 = base + tid + b;
    const T x0 = i0 < n ? in[i0] : Op::identity();
    const T x1 = i1 < n ? in[i1] : Op::identity();
    s[gp::blelloch_slot<PAD>(tid)] = x0;
    s[gp::blelloch_slot<PAD>(tid + b)] = x1;
    Op op;
    T total = gp::block_scan_blelloch<Op, PAD>(s, op);
    const T e0 = s[gp::blelloch_slot<PAD>(tid)];
    const T e1 = s[gp::blelloch_slot<PAD>(tid + b)];
    if (i0 < n) out[i0] = exclusive ? e0 : op(e0, x0);
    if (i1 < n) out[i1] = exclusive ? e1 : op(e1, x1);
    if (sums != nullptr && tid == 0) sums[blockIdx.x] = total;
}

// out[i] = sums[b] ∘ out[i] for the E = per_block elements of block b (block 0 has nothing to add).
template <class Op>
__device__ __forceinline__ void add_block_sums(typename Op::value_type* out,
                                               const typename Op::value_type* sums, gp::u64 n,
                                               gp::u64 per_block) {
    typedef typename Op::value_type T;
    if (blockIdx.x == 0) return;
    const T carry = sums[blockIdx.x];
    const gp::u64 base = (gp::u64)blockIdx.x * per_block;
    Op op;
    for (gp::u64 j = threadIdx.x; j < per_block; j += blockDim.x) {
        const gp::u64 i = base + j;
        if (i < n) out[i] = op(carry, out[i]);
    }
}

// =============================================================================================
// PRODUCTION: the default (Algorithm::Auto): the decoupled look-back (and scan_sm80.cu's staged
//             tiles).
// =============================================================================================

// ---- Single-pass scan with decoupled look-back ----------------------------------------------
// One tile of blockDim.x · ITEMS values per block, held in registers; grid = number of tiles.
// The tile index comes from `counter` (its value minus `base`), the status words are tagged with
// `epoch` (gpu_prims/lookback_epoch.cuh): the host zeroes them (scan_lookback_init) only when
// its scratch is new, laid out otherwise, or its epochs run out. scan_sm80.cu has the larger
// staged tile for sm_80 and later.

template <class Op, bool DETERMINISTIC>
__device__ __forceinline__ void lookback_tiles(const typename Op::value_type* in,
                                               typename Op::value_type* out, gp::u64 n,
                                               gp::u32 exclusive, gp::u32* counter,
                                               gp::u32* flags, void* aggs, void* incs,
                                               gp::u32 epoch, gp::u32 base) {
    gp::ScanRegisterTile<Op> tile;
    gp::lookback_scan<Op, DETERMINISTIC>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,
                                         base, tile);
}

// Zeroes a look-back launch's tile counter and status words (same stream).
extern "C" __global__ void scan_lookback_init(gp::u32* words, gp::u64 count) {
    for (gp::u64 i = gp::global_thread_index(); i < count; i += gp::grid_thread_count()) words[i] = 0u;
}

// ---- Entry points -----------------------------------------------------------------------------

#define SCAN_ENTRIES(opname, OpT, tname, T)                                                    \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_hillis_steele_##opname##_##tname(const OpT<T>::value_type* in,                    \
                                              OpT<T>::value_type* out,                         \
                                              OpT<T>::value_type* sums, gp::u64 n,             \
                                              gp::u32 exclusive) {                             \
        hillis_steele_blocks<OpT<T>>(in, out, sums, n, exclusive);                             \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_blelloch_##opname##_##tname(const OpT<T>::value_type* in, OpT<T>::value_type* out, \
                                         OpT<T>::value_type* sums, gp::u64 n,                  \
                                         gp::u32 exclusive) {                                  \
        blelloch_blocks<OpT<T>, false>(in, out, sums, n, exclusive);                           \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_blelloch_padded_##opname##_##tname(const OpT<T>::value_type* in,                  \
                                                OpT<T>::value_type* out,                       \
                                                OpT<T>::value_type* sums, gp::u64 n,           \
                                                gp::u32 exclusive) {                           \
        blelloch_blocks<OpT<T>, true>(in, out, sums, n, exclusive);                            \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_add_block_sums_##opname##_##tname(OpT<T>::value_type* out,                        \
                                               const OpT<T>::value_type* sums, gp::u64 n,      \
                                               gp::u64 per_block) {                            \
        add_block_sums<OpT<T>>(out, sums, n, per_block);                                       \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_lookback_##opname##_##tname(const OpT<T>::value_type* in, OpT<T>::value_type* out, \
                                         gp::u64 n, gp::u32 exclusive, gp::u32* counter,       \
                                         gp::u32* flags, void* aggs, void* incs,               \
                                         gp::u32 epoch, gp::u32 base) {                        \
        lookback_tiles<OpT<T>, false>(in, out, n, exclusive, counter, flags, aggs, incs, epoch, \
                                      base);                                                   \
    }

GP_FOR_EACH_OP_TYPE(SCAN_ENTRIES)
GP_FOR_EACH_MONOID_TYPE(SCAN_ENTRIES)

// The fixed-order look-back, only where grouping can change a result: float sums and products
// and the float matrix/affine monoids. (Integer arithmetic wraps exactly and min/max/bitwise are
// exact, so the plain look-back is already deterministic there; Rust maps those to it.)
#define SCAN_DETERMINISTIC_ENTRY(opname, OpT, tname, T)                                        \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_lookback_det_##opname##_##tname(const OpT<T>::value_type* in,                     \
                                             OpT<T>::value_type* out, gp::u64 n,               \
                                             gp::u32 exclusive, gp::u32* counter,              \
                                             gp::u32* flags, void* aggs, void* incs,           \
                                             gp::u32 epoch, gp::u32 base) {                    \
        lookback_tiles<OpT<T>, true>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,  \
                                     base);                                                    \
    }

SCAN_DETERMINISTIC_ENTRY(sum, gp::Sum, f32, gp::f32)
SCAN_DETERMINISTIC_ENTRY(sum, gp::Sum, f64, gp::f64)
SCAN_DETERMINISTIC_ENTRY(prod, gp::Prod, f32, gp::f32)
SCAN_DETERMINISTIC_ENTRY(prod, gp::Prod, f64, gp::f64)
SCAN_DETERMINISTIC_ENTRY(mat2, gp::Mat2Product, f32, gp::f32)
SCAN_DETERMINISTIC_ENTRY(mat2, gp::Mat2Product, f64, gp::f64)
SCAN_DETERMINISTIC_ENTRY(affine, gp::AffineCompose, f32, gp::f32)
SCAN_DETERMINISTIC_ENTRY(affine, gp::AffineCompose, f64, gp::f64)

// ---- Seeded: the flat scan continued from a value (scan_from_into, sharded scans) --------------
// scan_lookback_seeded_<op>_<type>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,
// base, seed): scan_lookback's arguments, then `seed` (the value itself, read by the first
// tile).
// Always the fixed-order look-back (float results run-independent; exact operators lose
// nothing). Sums only: the other operators and the monoids would add 0.9 MB to the crate
// (crates.io takes 10 MB), and scan_from_into runs them on the lane kernels instead.
#define SCAN_SEEDED_ENTRY(opname, OpT, tname, T)                                               \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_lookback_seeded_##opname##_##tname(                                               \
            const OpT<T>::value_type* in, OpT<T>::value_type* out, gp::u64 n,                  \
            gp::u32 exclusive, gp::u32* counter, gp::u32* flags, void* aggs, void* incs,       \
            gp::u32 epoch, gp::u32 base, const OpT<T>::value_type seed) {                      \
        gp::ScanRegisterTile<OpT<T>> tile;                                                     \
        gp::lookback_scan<OpT<T>, true, gp::ScanRegisterTile<OpT<T>>, true>(                   \
            in, out, n, exclusive, counter, flags, aggs, incs, epoch, base, tile, &seed);      \
    }
GP_FOR_EACH_TYPE(SCAN_SEEDED_ENTRY, sum, gp::Sum)

// ---- 16-bit floats ----------------------------------------------------------------------------
// Scanned in f32 by the converting register tile (gpu_prims/scan_tile.cuh), written as the
// element type or as f32: scan_lookback_[det_]<op>_<h>_to_<out>, sum with both look-backs,
// min and max (exact) with the plain one. The default look-back only: the teaching scans and
// the staged sm_80 tiles are not built for them.
template <class Op, bool DETERMINISTIC, class In, class Out>
__device__ __forceinline__ void convert_lookback_tiles(const In* in, Out* out, gp::u64 n,
                                                       gp::u32 exclusive, gp::u32* counter,
                                                       gp::u32* flags, void* aggs, void* incs,
                                                       gp::u32 epoch, gp::u32 base) {
    gp::ScanConvertTile<Op, In, Out> tile;
    gp::lookback_scan<Op, DETERMINISTIC>(in, out, n, exclusive, counter, flags, aggs, incs, epoch,
                                         base, tile);
}
#define SCAN_HALF_ENTRY(name, Op, DET, In, Out)                                                \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        name(const In* in, Out* out, gp::u64 n, gp::u32 exclusive, gp::u32* counter,           \
             gp::u32* flags, void* aggs, void* incs, gp::u32 epoch, gp::u32 base) {            \
        convert_lookback_tiles<Op, DET, In, Out>(in, out, n, exclusive, counter, flags, aggs,  \
                                                 incs, epoch, base);                           \
    }
#define SCAN_HALF_OUT(tname, H, oname, Out)                                                    \
    SCAN_HALF_ENTRY(scan_lookback_sum_##tname##_to_##oname, gp::Sum<gp::f32>, false, H, Out)   \
    SCAN_HALF_ENTRY(scan_lookback_det_sum_##tname##_to_##oname, gp::Sum<gp::f32>, true, H, Out) \
    SCAN_HALF_ENTRY(scan_lookback_min_##tname##_to_##oname, gp::Min<gp::f32>, false, H, Out)   \
    SCAN_HALF_ENTRY(scan_lookback_max_##tname##_to_##oname, gp::Max<gp::f32>, false, H, Out)
#define SCAN_HALF(tname, H) SCAN_HALF_OUT(tname, H, tname, H) SCAN_HALF_OUT(tname, H, f32, gp::f32)
SCAN_HALF(f16, gp::f16)
SCAN_HALF(bf16, gp::bf16)

// Along axes and over segments: the lane kernels below over 16-bit elements, computed in f32
// and written as the element type or as f32 (sum, min and max): scan_axis_, scan_rows_ and
// scan_segment_tiles_<op>_<h>_to_<out> (register tiles: the staged tiles, packed rows and
// vector columns are not built for them), and scan_axis_totals_<op>_<h>, the split totals in
// f32 (the Rust side scans those into seeds with scan_axis_<op>_f32).
#define SCAN_HALF_SHAPED_OUT(opname, OpF, tname, H, oname, Out)                                \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_axis_##opname##_##tname##_to_##oname(const H* in, gp::AxisLanes in_lanes,         \
                                                  Out* out, gp::AxisLanes out_lanes,           \
                                                  gp::LaneTiling tiling, const gp::f32* seeds, \
                                                  gp::u32 exclusive) {                         \
        gp::lanes_scan<OpF, gp::AxisLanes, gp::AxisLanes, H, Out>(in, in_lanes, out, out_lanes, \
                                                                 tiling, seeds, exclusive);    \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_rows_##opname##_##tname##_to_##oname(                                             \
            const H* in, gp::AxisLanes in_lanes, Out* out, gp::AxisLanes out_lanes,            \
            gp::u64 tiles_per_lane, gp::u32 exclusive, gp::u32* counter, gp::u32* flags,       \
            void* aggs, void* incs, gp::u32 epoch, gp::u32 base) {                             \
        gp::ScanConvertTile<OpF, H, Out> tile;                                                 \
        gp::lookback_scan_lanes<OpF, true>(in, in_lanes, out, out_lanes, tiles_per_lane,       \
                                           exclusive, counter, flags, aggs, incs, epoch, base, \
                                           tile);                                              \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_segment_tiles_##opname##_##tname##_to_##oname(                                    \
            const H* in, gp::SegmentTiles st, Out* out, gp::u32 exclusive, gp::u32* counter,   \
            gp::u32* flags, void* aggs, void* incs) {                                          \
        gp::SegmentRegisterTile<OpF, H, Out> tile;                                             \
        gp::segment_tiles_scan_with<OpF>(in, st, out, exclusive, counter, flags, aggs, incs,   \
                                         tile);                                                \
    }
#define SCAN_HALF_SHAPED_OP(opname, OpF, tname, H)                                             \
    SCAN_HALF_SHAPED_OUT(opname, OpF, tname, H, tname, H)                                      \
    SCAN_HALF_SHAPED_OUT(opname, OpF, tname, H, f32, gp::f32)                                  \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_axis_totals_##opname##_##tname(const H* __restrict__ in, gp::AxisLanes lanes,     \
                                            gp::LaneTiling tiling, gp::f32* totals) {          \
        gp::lanes_reduce<OpF, H, gp::AxisLanes, gp::StoreValue<gp::f32>>(in, lanes, tiling,    \
                                                                         nullptr, totals,      \
                                                                         nullptr);             \
    }
#define SCAN_HALF_SHAPED(tname, H)                                                             \
    SCAN_HALF_SHAPED_OP(sum, gp::Sum<gp::f32>, tname, H)                                       \
    SCAN_HALF_SHAPED_OP(min, gp::Min<gp::f32>, tname, H)                                       \
    SCAN_HALF_SHAPED_OP(max, gp::Max<gp::f32>, tname, H)

// ---- Long rows: every lane of an axis its own look-back scan --------------------------------
// scan_rows_<op>_<type>(in, in_lanes, out, out_lanes, tiles_per_lane, exclusive, counter, flags,
// aggs, incs, epoch, base): lanes contiguous in both arrays (axis stride 1), each scanned as the
// flat look-back scan scans an array, tiles_per_lane register tiles of blockDim.x · ITEMS values
// per lane, grid = lanes · tiles_per_lane; status (epoch-tagged) and counter as scan_lookback's,
// one slot per tile. Always the fixed-order look-back (float results run-independent; the exact
// operators lose nothing).
#define SCAN_ROWS(opname, OpT, tname, T)                                                       \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_rows_##opname##_##tname(const OpT<T>::value_type* in, gp::AxisLanes in_lanes,     \
                                     OpT<T>::value_type* out, gp::AxisLanes out_lanes,         \
                                     gp::u64 tiles_per_lane, gp::u32 exclusive,                \
                                     gp::u32* counter, gp::u32* flags, void* aggs,             \
                                     void* incs, gp::u32 epoch, gp::u32 base) {                \
        gp::ScanRegisterTile<OpT<T>> tile;                                                     \
        gp::lookback_scan_lanes<OpT<T>, true>(in, in_lanes, out, out_lanes, tiles_per_lane,    \
                                              exclusive, counter, flags, aggs, incs, epoch,    \
                                              base, tile);                                     \
    }
GP_FOR_EACH_OP_TYPE(SCAN_ROWS)
GP_FOR_EACH_MONOID_TYPE(SCAN_ROWS)

// ---- Linear recurrence x[t] = a[t]·x[t-1] + b[t] on top of the affine scan ----------------------

template <class T>
__device__ __forceinline__ void recurrence_pack(const T* a, const T* b, gp::Affine<T>* maps,
                                                gp::u64 n) {
    for (gp::u64 i = gp::global_thread_index(); i < n; i += gp::grid_thread_count()) {
        gp::Affine<T> f;
        f.a = a[i];
        f.b = b[i];
        maps[i] = f;
    }
}

// x[t] = (f_0 then ... then f_t)(x_init) = A·x_init + B for the scanned map (A, B).
template <class T>
__device__ __forceinline__ void recurrence_apply(const gp::Affine<T>* scanned, T x_init, T* x,
                                                 gp::u64 n) {
    for (gp::u64 i = gp::global_thread_index(); i < n; i += gp::grid_thread_count()) {
        const gp::Affine<T> f = scanned[i];
        x[i] = f.a * x_init + f.b;
    }
}

#define SCAN_RECURRENCE_ENTRIES(tname, T)                                                      \
    extern "C" __global__ void scan_recurrence_pack_##tname(const T* a, const T* b,             \
                                                            gp::Affine<T>* maps, gp::u64 n) {  \
        recurrence_pack(a, b, maps, n);                                                        \
    }                                                                                          \
    extern "C" __global__ void scan_recurrence_apply_##tname(const gp::Affine<T>* scanned,     \
                                                             T x_init, T* x, gp::u64 n) {      \
        recurrence_apply(scanned, x_init, x, n);                                               \
    }
SCAN_RECURRENCE_ENTRIES(f32, gp::f32)
SCAN_RECURRENCE_ENTRIES(f64, gp::f64)

// ---- Shaped data: every lane of an axis (gpu_prims/lanes.cuh) --------------------------------
#define SCAN_LANES(opname, OpT, tname, T)                                                      \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK) scan_axis_##opname##_##tname( \
        const OpT<T>::value_type* in, gp::AxisLanes in_lanes, OpT<T>::value_type* out,         \
        gp::AxisLanes out_lanes, gp::LaneTiling tiling, const OpT<T>::value_type* seeds,       \
        gp::u32 exclusive) {                                                                   \
        gp::lanes_scan<OpT<T>>(in, in_lanes, out, out_lanes, tiling, seeds, exclusive);        \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_axis_totals_##opname##_##tname(const OpT<T>::value_type* __restrict__ in,         \
                                            gp::AxisLanes lanes, gp::LaneTiling tiling,        \
                                            OpT<T>::value_type* totals) {                      \
        gp::lanes_reduce<OpT<T>, OpT<T>::value_type, gp::AxisLanes,                            \
                         gp::StoreValue<OpT<T>::value_type>>(in, lanes, tiling, nullptr, totals, \
                                                             nullptr);                         \
    }
GP_FOR_EACH_OP_TYPE(SCAN_LANES)
GP_FOR_EACH_MONOID_TYPE(SCAN_LANES)

// scan_segment_tiles_<op>_<type>(in, st, out, exclusive, counter, flags, aggs, incs): every
// segment scanned, the values read as flat register tiles of blockDim.x · ITEMS values
// (gpu_prims/segment_tiles.cuh), grid = tiles; status as scan_lookback's, one slot per tile.
#define SCAN_SEGMENT_TILES(opname, OpT, tname, T)                                              \
    extern "C" __global__ void __launch_bounds__(SCAN_MAX_THREADS)                             \
        scan_segment_tiles_##opname##_##tname(const OpT<T>::value_type* in, gp::SegmentTiles st, \
                                              OpT<T>::value_type* out, gp::u32 exclusive,      \
                                              gp::u32* counter, gp::u32* flags, void* aggs,    \
                                              void* incs) {                                    \
        gp::segment_tiles_scan<OpT<T>>(in, st, out, exclusive, counter, flags, aggs, incs);    \
    }
GP_FOR_EACH_OP_TYPE(SCAN_SEGMENT_TILES)
GP_FOR_EACH_MONOID_TYPE(SCAN_SEGMENT_TILES)

// scan_packed_<op>_<type>: rows of a packed array, n = 2^log2n <= 32 vectors (scalar types).
#define SCAN_PACKED(opname, OpT, tname, T)                                                     \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK) scan_packed_##opname##_##tname( \
        const T* in, T* out, gp::u64 count, gp::u32 log2n, gp::u32 exclusive) {                \
        gp::lanes_scan_packed<OpT<T>>(in, out, count, log2n, exclusive);                       \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK) scan_columns_##opname##_##tname( \
        const T* in, gp::ColumnLanes in_lanes, T* out, gp::ColumnLanes out_lanes,              \
        gp::u32* state, void* values, gp::u32 exclusive, gp::u64 begin, gp::u64 end) {         \
        gp::lanes_scan_columns<OpT<T>>(in, in_lanes, out, out_lanes, state, values, exclusive,  \
                                       begin, end);                                            \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_columns_short_##opname##_##tname(const T* in, gp::ColumnLanes in_lanes, T* out,   \
                                              gp::ColumnLanes out_lanes, gp::u32 exclusive) {  \
        gp::lanes_scan_columns_short<OpT<T>>(in, in_lanes, out, out_lanes, exclusive);         \
    }
GP_FOR_EACH_OP_TYPE(SCAN_PACKED)

// scan_columns_long_<op>_<type>: the columns scan in spans of COLUMN_LONG_ROWS vector rows per
// thread, for few tiles of many spans. Sums, products, min and max only (bitwise scans there
// take the two-pass lane scan): each of these kernels is large, and the crate's size is capped.
#define SCAN_COLUMNS_LONG(opname, OpT, tname, T)                                               \
    extern "C" __global__ void __launch_bounds__(gp::LANES_BLOCK)                              \
        scan_columns_long_##opname##_##tname(const T* in, gp::ColumnLanes in_lanes, T* out,    \
                                             gp::ColumnLanes out_lanes, gp::u32* state,        \
                                             void* values, gp::u32 exclusive, gp::u64 begin,   \
                                             gp::u64 end) {                                    \
        gp::lanes_scan_columns<OpT<T>, gp::COLUMN_LONG_ROWS>(in, in_lanes, out, out_lanes,      \
                                                              state, values, exclusive, begin, \
                                                              end);                            \
    }
GP_FOR_EACH_ARITH_OP_TYPE(SCAN_COLUMNS_LONG)

// 16-bit floats along axes and over segments (the macros above, beside the flat ones).
SCAN_HALF_SHAPED(f16, gp::f16)
SCAN_HALF_SHAPED(bf16, gp::bf16)
