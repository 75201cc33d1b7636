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
// Launches whose status is zeroed before each run (the segment tiles) are all run 1.
//
// The slot of a value (gpu_core::StatusLayout::epoch lays them out): 4-, 8- and 16-byte values
// as one 64-bit word per 4-byte piece, the piece in the low half and the epoch in the high
// half, written and read whole, so a slot is published when all its words carry the epoch:
// no flag, no fence. Wider values keep a flag word, ordered by fences (lookback.cuh).
#pragma once
#include <gpu_prims/lookback.cuh>

namespace gp {

// 64-bit status words per value: one for 4-byte values, one per 4-byte piece for 8- and
// 16-byte ones (each piece beside the epoch), none (a flag word and fences) for wider ones.
template <class T> __host__ __device__ constexpr int epoch_status_words() {
    return sizeof(T) == 4 ? 1 : (sizeof(T) == 8 || sizeof(T) == 16) ? (int)(sizeof(T) / 4) : 0;
}

template <class T, int WORDS = epoch_status_words<T>()> struct ScanEpochStatus;

// 4-byte values: the slot is one 64-bit word, the epoch in the high half, the value bits in the
// low half.
template <class T> struct ScanEpochStatus<T, 1> {
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

// Values of 8 or 16 bytes: K = 2 or 4 words per slot, each a 4-byte piece of the value in its
// low half and the epoch in its high half, so that a slot counts as published when all K words
// carry this run's epoch, with no flag and no fence. Each 64-bit word is written and read
// whole (a slot by one or two 16-byte volatile accesses, each 8-byte element of which is
// single-copy atomic); a slot is written once per run, so K words with this run's epoch are
// this run's value, whatever order they arrived in. The fenced form (below) cost 8-byte flat
// scans of 2^27 values 0.77-0.79x copy against 0.84 for 4-byte ones on an H200; split, 0.83-0.86
// (docs/scan.md).
template <class T, int K> struct ScanEpochStatus {
    static_assert(K == 2 || K == 4, "8- and 16-byte values");
    static_assert(sizeof(T) == 4 * (size_t)K, "one 4-byte piece per word");
    static constexpr bool NEEDS_FENCE = false;
    struct Pieces {
        u32 w[K];
    };
    u64* aggregates;  // [tile * K + k]
    u64* inclusives;
    u32 epoch;

    __device__ ScanEpochStatus(u32* /*flags*/, void* aggs, void* incs, u32 e)
        : aggregates(static_cast<u64*>(aggs)), inclusives(static_cast<u64*>(incs)), epoch(e) {}

    static __device__ __forceinline__ void load_pair(const u64* p, u64& a, u64& b) {
        asm volatile("ld.volatile.v2.u64 {%0, %1}, [%2];" : "=l"(a), "=l"(b) : "l"(p) : "memory");
    }
    static __device__ __forceinline__ void store_pair(u64* p, u64 a, u64 b) {
        asm volatile("st.volatile.v2.u64 [%0], {%1, %2};" ::"l"(p), "l"(a), "l"(b) : "memory");
    }
    __device__ __forceinline__ void publish(u64* slots, u64 tile, T v) const {
        const Pieces q = scan_bit_cast<Pieces>(v);
        const u64 tag = (u64)epoch << 32;
#pragma unroll
        for (int k = 0; k < K; k += 2)
            store_pair(slots + tile * K + k, tag | q.w[k], tag | q.w[k + 1]);
    }
    // The slot's words; whether all carry this run's epoch.
    __device__ __forceinline__ bool read(const u64* slots, u64 tile, T& v) const {
        u64 w[K];
#pragma unroll
        for (int k = 0; k < K; k += 2) load_pair(slots + tile * K + k, w[k], w[k + 1]);
        Pieces q;
        bool all = true;
#pragma unroll
        for (int k = 0; k < K; ++k) {
            all = all && (u32)(w[k] >> 32) == epoch;
            q.w[k] = (u32)w[k];
        }
        v = scan_bit_cast<T>(q);
        return all;
    }

    __device__ __forceinline__ void publish_aggregate(u64 tile, T v) const {
        publish(aggregates, tile, v);
    }
    __device__ __forceinline__ void publish_inclusive(u64 tile, T v) const {
        publish(inclusives, tile, v);
    }
    __device__ __forceinline__ int poll(u64 tile, T& v) const {
        T inc, agg;
        const bool has_inc = read(inclusives, tile, inc);
        const bool has_agg = read(aggregates, tile, agg);
        if (has_inc) {
            v = inc;
            return SCAN_TILE_INCLUSIVE;
        }
        if (has_agg) {
            v = agg;
            return SCAN_TILE_AGGREGATE;
        }
        return SCAN_TILE_INVALID;
    }
    __device__ __forceinline__ void read_value(u64, int, T&) const {}
    // The aggregate of a tile already seen published (all its words this run's).
    __device__ __forceinline__ T aggregate(u64 tile) const {
        T v;
        read(aggregates, tile, v);
        return v;
    }
};

// Larger values: the flag word holds the epoch above the status (epoch · 4 + status); values in
// their own arrays, ordered by fences as in lookback.cuh.
template <class T> struct ScanEpochStatus<T, 0> {
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
