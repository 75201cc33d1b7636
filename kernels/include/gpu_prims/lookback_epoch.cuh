// Look-back status tagged with the launch's epoch: lookback.cuh's protocol over a status array
// and tile counter that are reused from launch to launch without being zeroed in between.
//
// The host numbers the launches (runs) that share one scratch 1, 2, 3, ... and passes each its
// epoch and `base`, the counter's value before it. A slot counts as published in this run only
// when it carries this run's epoch, so what older runs left reads as invalid, and the tile index
// is the counter's value minus `base`. What this saves is the zeroing launch before every scan:
// 3.5-4 µs on an H200, a quarter of the time of a 2^20 scan (docs/tuning.md).
//
// Preconditions (the host's, gpu-scan's status_epochs.rs): every word of the status array is
// zero or was written by a run of a smaller epoch with the same layout (the same slot offsets
// and value size), and `base` is the counter's value when the run starts (it counts on past
// 2^32, wrapping; a run has fewer than 2^32 tiles). Epochs are at least 1 and below 2^30.
#pragma once
#include <gpu_prims/lookback.cuh>

namespace gp {

template <class T, bool PACKED = (sizeof(T) == 4)> struct ScanEpochStatus;

// 4-byte values: the slot is one 64-bit word, the epoch in the high half, the value bits in the
// low half (lookback.cuh's packed slot with the epoch for its "published" 1).
template <class T> struct ScanEpochStatus<T, true> {
    static constexpr bool NEEDS_FENCE = false;
    u64* aggregates;
    u64* inclusives;
    u32 epoch;

    __device__ ScanEpochStatus(u32* /*flags*/, void* aggs, void* incs, u32 e)
        : aggregates(static_cast<u64*>(aggs)), inclusives(static_cast<u64*>(incs)), epoch(e) {}

    __device__ __forceinline__ u64 pack(T v) const {
        return ((u64)epoch << 32) | (u64)scan_bit_cast<u32>(v);
    }
    static __device__ __forceinline__ T unpack(u64 w) { return scan_bit_cast<T>((u32)w); }

    __device__ __forceinline__ void publish_aggregate(u64 tile, T v) const {
        *reinterpret_cast<volatile u64*>(aggregates + tile) = pack(v);
    }
    __device__ __forceinline__ void publish_inclusive(u64 tile, T v) const {
        *reinterpret_cast<volatile u64*>(inclusives + tile) = pack(v);
    }
    __device__ __forceinline__ int poll(u64 tile, T& v) const {
        const u64 inc = *reinterpret_cast<volatile u64*>(inclusives + tile);
        const u64 agg = *reinterpret_cast<volatile u64*>(aggregates + tile);
        if ((u32)(inc >> 32) == epoch) {
            v = unpack(inc);
            return SCAN_TILE_INCLUSIVE;
        }
        if ((u32)(agg >> 32) == epoch) {
            v = unpack(agg);
            return SCAN_TILE_AGGREGATE;
        }
        return SCAN_TILE_INVALID;
    }
    __device__ __forceinline__ void read_value(u64, int, T&) const {}
    __device__ __forceinline__ T aggregate(u64 tile) const {
        return unpack(*reinterpret_cast<volatile u64*>(aggregates + tile));
    }
};

// Larger values: the flag word holds the epoch above the status (epoch · 4 + status); values in
// their own arrays, ordered by fences as in lookback.cuh.
template <class T> struct ScanEpochStatus<T, false> {
    static constexpr bool NEEDS_FENCE = true;
    u32* flags;
    T* aggregates;
    T* inclusives;
    u32 epoch;

    __device__ ScanEpochStatus(u32* f, void* aggs, void* incs, u32 e)
        : flags(f), aggregates(static_cast<T*>(aggs)), inclusives(static_cast<T*>(incs)), epoch(e) {}

    __device__ __forceinline__ void publish(u64 tile, T* values, T v, u32 status) const {
        store_coherent(values + tile, v);
        __threadfence();  // the value is visible device-wide before the flag says so
        *reinterpret_cast<volatile u32*>(flags + tile) = (epoch << 2) | status;
    }
    __device__ __forceinline__ void publish_aggregate(u64 tile, T v) const {
        publish(tile, aggregates, v, SCAN_TILE_AGGREGATE);
    }
    __device__ __forceinline__ void publish_inclusive(u64 tile, T v) const {
        publish(tile, inclusives, v, SCAN_TILE_INCLUSIVE);
    }
    __device__ __forceinline__ int poll(u64 tile, T&) const {
        const u32 f = *reinterpret_cast<volatile u32*>(flags + tile);
        return (f >> 2) == epoch ? (int)(f & 3u) : SCAN_TILE_INVALID;
    }
    __device__ __forceinline__ void read_value(u64 tile, int status, T& v) const {
        v = load_coherent(status == SCAN_TILE_INCLUSIVE ? inclusives + tile : aggregates + tile);
    }
    __device__ __forceinline__ T aggregate(u64 tile) const {
        return load_coherent(aggregates + tile);
    }
};

}  // namespace gp
