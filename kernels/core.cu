// Kernels of gpu-core itself: fills used by tests and benchmarks (a device-to-device copy is
// the driver's own cuMemcpyDtoD), and copies between N-D layouts (by element size).
#include <gpu_prims/layout_copy.cuh>
#include <gpu_prims/load.cuh>

template <class T> __device__ void fill(T* out, gp::u64 n, T value) {
    for (gp::u64 i = gp::global_thread_index(); i < n; i += gp::grid_thread_count()) out[i] = value;
}

// out[i] = i (wrapping to the type), for checking that every element is written.
template <class T> __device__ void iota(T* out, gp::u64 n) {
    for (gp::u64 i = gp::global_thread_index(); i < n; i += gp::grid_thread_count()) out[i] = (T)i;
}

#define CORE_ENTRY(tname, T)                                                                   \
    extern "C" __global__ void fill_##tname(T* out, gp::u64 n, T value) { fill(out, n, value); } \
    extern "C" __global__ void iota_##tname(T* out, gp::u64 n) { iota(out, n); }
CORE_ENTRY(i32, gp::i32)
CORE_ENTRY(u32, gp::u32)
CORE_ENTRY(i64, gp::i64)
CORE_ENTRY(u64, gp::u64)
CORE_ENTRY(f32, gp::f32)
CORE_ENTRY(f64, gp::f64)

// 16-bit floats: fills copy the bits; iota rounds i to the nearest value (infinity past the
// largest finite one).
template <class H> __device__ void iota_half(H* out, gp::u64 n) {
    for (gp::u64 i = gp::global_thread_index(); i < n; i += gp::grid_thread_count())
        out[i] = gp::from_f32<H>((gp::f32)i);
}
#define CORE_HALF_ENTRY(tname, H)                                                              \
    extern "C" __global__ void fill_##tname(H* out, gp::u64 n, H value) { fill(out, n, value); } \
    extern "C" __global__ void iota_##tname(H* out, gp::u64 n) { iota_half(out, n); }
CORE_HALF_ENTRY(f16, gp::f16)
CORE_HALF_ENTRY(bf16, gp::bf16)

// Layout copies move bytes, so one entry per element size serves every type.
struct alignas(16) Bytes16 {
    gp::u64 lo, hi;
};
#define LAYOUT_ENTRY(bits, T)                                                                  \
    extern "C" __global__ void copy_layout_rows_b##bits(const T* src, T* dst, gp::CopyLayout l, \
                                                        gp::u64 rows, gp::u32 width) {         \
        gp::copy_layout_rows(src, dst, l, rows, width);                                        \
    }                                                                                          \
    extern "C" __global__ void __launch_bounds__(256)                                          \
        copy_layout_tiles_b##bits(const T* src, T* dst, gp::CopyLayout l) {                    \
        gp::copy_layout_tiles(src, dst, l);                                                    \
    }
LAYOUT_ENTRY(8, unsigned char)
LAYOUT_ENTRY(16, unsigned short)
LAYOUT_ENTRY(32, gp::u32)
LAYOUT_ENTRY(64, gp::u64)
LAYOUT_ENTRY(128, Bytes16)
