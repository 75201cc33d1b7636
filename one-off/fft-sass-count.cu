// Nine FFT entries of kernels/conv1d.cu, compiled alone for one-off/ptx-mix.py (seconds, not the
// four minutes of the whole module):
//   python3 one-off/nvrtc-check.py one-off/fft-sass-count.cu compute_70 /tmp/fft.ptx
//   python3 one-off/ptx-mix.py /tmp/fft.ptx conv1d_fft_eo16384_pairs_f32 --sass sm_90
#include <gpu_prims/conv1d_fft.cuh>
using gp::f32; using gp::f64;
GP_CONV1D_FFT_ENTRY(10, 1024, f32, f32, f32)
GP_CONV1D_FFT_ENTRY(12, 4096, f32, f32, f32)
GP_CONV1D_FFT_ENTRY(13, 8192, f32, f32, f32)
GP_CONV1D_FFT_ENTRY(12, 4096, f64, f64, f64)
GP_CONV1D_FFT_EVEN_ODD_ENTRY(14, 32768, f32, f32, f32)
GP_CONV1D_FFT_EVEN_ODD_ENTRY(14, 32768, f16, gp::f16, f32)
GP_CONV1D_FFT_EVEN_ODD_ENTRY(13, 16384, f64, f64, f64)
GP_CONV1D_FFT_EVEN_ODD_ENTRY(13, 16384, bf16, gp::bf16, f32)
GP_CONV1D_FFT_EVEN_ODD_PAIRS_ENTRY(13, 16384, f32, f32, f32)
