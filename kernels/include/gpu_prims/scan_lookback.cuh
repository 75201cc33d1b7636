// The device-level single-pass scan: one tile per block, tile index from an atomic counter,
// the tile scanned by a Tile policy (ScanRegisterTile in scan_tile.cuh, or ScanStagedTile in
// scan_tile_staged.cuh on sm_80+), its prefix found by decoupled look-back (lookback.cuh) over
// epoch-tagged status (lookback_epoch.cuh).
//
// Tile policy interface: in_type and out_type (what `in` and `out` hold: the value type, or the
// 16-bit floats of ScanConvertTile); aligned(in, out) (whether full tiles may use vector
// accesses); ITEMS (values per thread); load(in, seg, n, vector_ok) brings this
// lane's values of the warp segment starting at `seg`; scan(exclusive, op) scans the segment
// and returns its total (every lane); store(out, seg, n, vector_ok, prefix, has_prefix,
// exclusive, op) writes prefix ∘ (segment-local result).
//
// Inputs and outputs may be the same array: a block reads all of its values before its first
// store, and no block reads another's values.
//
// SEEDED scans continue from a value in device memory (`seed`): the first tile takes it as its
// prefix, as later tiles take their predecessors', so every output is seed ∘ (its scan). The
// piece of a longer sequence (a shard of gpu-dist, a batch of a stream) in one pass.
//
// Prefetch policy (prefetch.cuh): each tile asks for the input of the tile `tiles` on from its
// own as soon as its loads are issued (docs/tuning.md, "L2 prefetch").
#pragma once
#include <gpu_prims/lookback.cuh>
#include <gpu_prims/lookback_epoch.cuh>
#include <gpu_prims/prefetch.cuh>
#include <gpu_prims/scan_tile.cuh>

namespace gp {

// One tile of a scan of n values at in/out whose tiles own the status slots first, first + 1,
// ...: this one `slot`. `status`: a ScanEpochStatus (lookback_epoch.cuh).
template <class Op, bool DETERMINISTIC, class Tile, bool SEEDED = false, class Status,
          class Prefetch = NoPrefetch>
__device__ __forceinline__ void lookback_scan_tile(const typename Tile::in_type* in,
                                                   typename Tile::out_type* out, u64 n,
                                                   u32 exclusive, u64 slot, u64 first,
                                                   const Status& status, Tile& t,
                                                   const typename Op::value_type* seed = nullptr,
                                                   Prefetch prefetch = Prefetch()) {
    typedef typename Op::value_type T;
    __shared__ T warp_totals[32];
    __shared__ T tile_prefix;
    Op op;
    const unsigned lane = lane_id(), warp = warp_id(), warps = blockDim.x >> 5;
    const u64 tile = slot - first;  // index within this scan
    const u64 tile_items = (u64)blockDim.x * Tile::ITEMS;
    const u64 seg = tile * tile_items + (u64)warp * (32 * Tile::ITEMS);
    const bool full = (tile + 1) * tile_items <= n;
    const bool vector_ok = full && Tile::aligned(in, out);

    t.load(in, seg, n, vector_ok);
    if constexpr (Prefetch::ENABLED) {
        if (threadIdx.x == 0) tile_prefetch(prefetch, in, tile, tile_items, n);
    }
    const T warp_total = t.scan(exclusive != 0, op);
    if (lane == 0) warp_totals[warp] = warp_total;
    __syncthreads();

    if (warp == 0) {
        // The tile's aggregate, the same left fold in every lane.
        T aggregate = warp_totals[0];
        for (unsigned w = 1; w < warps; ++w) aggregate = op(aggregate, warp_totals[w]);
        // tile_prefix is only written (and read, below) for tiles after the first: a prefix
        // initialised to the identity on one path only made NVRTC 12.0 place that constant
        // differently from compile to compile (non-reproducible PTX).
        if (tile == 0 && SEEDED) {
            if (lane == 0) {
                const T prefix = *seed;
                status.publish_inclusive(slot, op(prefix, aggregate));
                tile_prefix = prefix;
            }
        } else if (tile == 0) {
            if (lane == 0) status.publish_inclusive(slot, aggregate);
        } else {
            if (lane == 0) status.publish_aggregate(slot, aggregate);
            const T prefix =
                DETERMINISTIC ? scan_lookback_deterministic(status, slot, op, (i64)first)
                              : scan_lookback(status, slot, op, (i64)first);
            if (lane == 0) {
                status.publish_inclusive(slot, op(prefix, aggregate));
                tile_prefix = prefix;
            }
        }
    }
    // Everything before this warp's segment: the tile's prefix, then earlier warps' totals.
    T before = Op::identity();
    for (unsigned w = 0; w < warp; ++w) before = w == 0 ? warp_totals[0] : op(before, warp_totals[w]);
    __syncthreads();
    bool has_prefix = warp > 0;
    if (tile > 0 || SEEDED) {
        before = warp > 0 ? op(tile_prefix, before) : tile_prefix;
        has_prefix = true;
    }
    t.store(out, seg, n, vector_ok, before, has_prefix, exclusive != 0, op);
}

// The flat scan: one tile per block, the tile index taken from `counter` (its value minus
// `base`), status tagged with `epoch` (lookback_epoch.cuh: nothing zeroed before the launch).
// SEEDED: continued from `*seed` (see above).
template <class Op, bool DETERMINISTIC, class Tile, bool SEEDED = false,
          class Prefetch = NoPrefetch>
__device__ __forceinline__ void lookback_scan(const typename Tile::in_type* in,
                                              typename Tile::out_type* out, u64 n, u32 exclusive,
                                              u32* counter, u32* flags, void* aggs, void* incs,
                                              u32 epoch, u32 base, Tile& t,
                                              const typename Op::value_type* seed = nullptr,
                                              Prefetch prefetch = Prefetch()) {
    __shared__ u32 tile_slot;
    // Dynamic tile index: tiles are taken in the order blocks start running.
    if (threadIdx.x == 0) tile_slot = atomicAdd(counter, 1u) - base;
    __syncthreads();
    const ScanEpochStatus<typename Op::value_type> status(flags, aggs, incs, epoch);
    lookback_scan_tile<Op, DETERMINISTIC, Tile, SEEDED>(in, out, n, exclusive, tile_slot, 0,
                                                        status, t, seed, prefetch);
}

// Every lane of `in_lanes` (contiguous: axis stride 1) scanned into the same lane of
// `out_lanes` (also contiguous), each lane a scan of its own over `tiles_per_lane` tiles: tile
// slots lane-major, handed out in order by `counter` (its value minus `base`), so a tile only
// waits on earlier tiles of its own lane, held by blocks already running; status tagged with
// `epoch` as the flat scan's. Long rows at the flat scan's speed.
template <class Op, bool DETERMINISTIC, class Tile, class Lanes>
__device__ __forceinline__ void lookback_scan_lanes(const typename Tile::in_type* in,
                                                    Lanes in_lanes,
                                                    typename Tile::out_type* out,
                                                    Lanes out_lanes, u64 tiles_per_lane,
                                                    u32 exclusive, u32* counter, u32* flags,
                                                    void* aggs, void* incs, u32 epoch, u32 base,
                                                    Tile& t) {
    __shared__ u32 tile_slot;
    // One tile per lane: no look-back, so no ordering to keep (and no atomic to pay per tile;
    // the counter does not move).
    if (threadIdx.x == 0)
        tile_slot = tiles_per_lane == 1 ? blockIdx.x : atomicAdd(counter, 1u) - base;
    __syncthreads();
    const u64 slot = tile_slot;
    const u64 lane = slot / tiles_per_lane;
    lookback_scan_tile<Op, DETERMINISTIC>(
        in + in_lanes.start(lane), out + out_lanes.start(lane), in_lanes.length(lane), exclusive,
        slot, lane * tiles_per_lane,
        ScanEpochStatus<typename Op::value_type>(flags, aggs, incs, epoch), t);
}

}  // namespace gp
