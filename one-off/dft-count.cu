// The register DFTs of kernels/include/gpu_prims/fft.cuh alone, for their SASS size (no GPU):
//   python3 one-off/nvrtc-check.py one-off/dft-count.cu compute_70 /tmp/d.ptx
//   python3 one-off/ptx-mix.py /tmp/d.ptx dft32 --sass sm_90
#include <gpu_prims/fft.cuh>
using namespace gp;
extern "C" __global__ void dft32(Complex<float>* p) {
    Complex<float> v[32];
    for (int i = 0; i < 32; ++i) v[i] = p[threadIdx.x * 32 + i];
    fft_dft<32>(v);
    for (int i = 0; i < 32; ++i) p[threadIdx.x * 32 + i] = v[i];
}
extern "C" __global__ void dft16(Complex<float>* p) {
    Complex<float> v[16];
    for (int i = 0; i < 16; ++i) v[i] = p[threadIdx.x * 16 + i];
    fft_dft<16>(v);
    for (int i = 0; i < 16; ++i) p[threadIdx.x * 16 + i] = v[i];
}
