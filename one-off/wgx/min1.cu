#define MODE 1
#include <gpu_prims/async_copy.cuh>
#include <gpu_prims/wgmma.cuh>
using gp::f32; using gp::u32; using gp::u64;
extern __shared__ __align__(128) unsigned char smem_min[];
extern "C" __global__ void __launch_bounds__(128, 8) min_wgmma(float* out, int kt) {
    const u32 base = gp::shared_address(smem_min);
    f32 acc[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) acc[i] = 0.0f;
    gp::wgmma_fence_operands(acc);
    gp::wgmma_fence();
#if MODE == 1
    for (int c = 0; c < kt; ++c)
        gp::Wgmma<gp::f16, 64>::run(acc, gp::wgmma_descriptor(base + 256 * c, 128, 128), gp::wgmma_descriptor(base + 4096 + 16 * c, 1040, 128), c > 0);
#else
    gp::Wgmma<gp::f16, 64>::run(acc, gp::wgmma_descriptor(base, 128, 128), gp::wgmma_descriptor(base + 4096, 1040, 128), 1);
#endif
    gp::wgmma_commit();
    gp::wgmma_wait_all();
    gp::wgmma_fence_operands(acc);
#pragma unroll
    for (int i = 0; i < 32; ++i) out[threadIdx.x * 32 + i] = acc[i];
}
