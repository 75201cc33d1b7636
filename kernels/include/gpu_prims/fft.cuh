// Complex FFTs of N = 2^k points held by one block (the block layer of the FFT convolution):
// radix-R DFTs in registers (R = 2, 4, 8, 16, 32), and the Stockham passes that join them through
// shared memory. Every thread holds E points between passes (16 or 32: the caller's policy),
// so a block of N / E threads transforms N points; a pass of radix R does E / R butterflies per
// thread.
//
// Stockham autosort (no bit-reversal pass): a pass of radix R over sub-transforms of ns points
// reads, for butterfly j < N / R, the R points j + r·N/R, turns each by the twiddle
// W_N^(r·(j mod ns)·N/(ns·R)) (W_N = e^(−2πi/N)), transforms them and writes point r of the
// result to (j / ns)·ns·R + (j mod ns) + r·ns. After the pass with ns = N / R the transform is
// in natural order, point j + r·N/R in the registers of butterfly j: the layout the first pass
// of the next transform reads. So consecutive transforms (the forward transform, the pointwise
// product and the inverse transform of the FFT convolution) join in registers, without a
// round trip through shared memory.
//
// Twiddles come from a table of rows (FftTwiddleRows, computed on the host in f64, rounded
// once): the same accuracy as the direct sums' O(ε·log N) error growth needs.
#pragma once
#include <gpu_prims/types.cuh>

namespace gp {

// Points per thread between passes (the default policy; BlockFft takes another).
constexpr int FFT_E = 16;

template <class A> struct alignas(2 * sizeof(A)) Complex {
    A re, im;
};

template <class A> __device__ __forceinline__ Complex<A> cmul(Complex<A> a, Complex<A> b) {
    return {a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};
}

// A read-only load the compiler keeps where it stands.
__device__ __forceinline__ Complex<f32> fft_ldg(const Complex<f32>* p) {
    Complex<f32> c;
    asm volatile("ld.global.v2.f32 {%0, %1}, [%2];" : "=f"(c.re), "=f"(c.im) : "l"(p));
    return c;
}
__device__ __forceinline__ Complex<f64> fft_ldg(const Complex<f64>* p) {
    Complex<f64> c;
    asm volatile("ld.global.v2.f64 {%0, %1}, [%2];" : "=d"(c.re), "=d"(c.im) : "l"(p));
    return c;
}

// Two consecutive complex values in one load where they fit 16 bytes (f32).
__device__ __forceinline__ void fft_ldg2(const Complex<f32>* p, Complex<f32>& a, Complex<f32>& b) {
    asm volatile("ld.global.v4.f32 {%0, %1, %2, %3}, [%4];"
                 : "=f"(a.re), "=f"(a.im), "=f"(b.re), "=f"(b.im)
                 : "l"(p));
}
__device__ __forceinline__ void fft_ldg2(const Complex<f64>* p, Complex<f64>& a, Complex<f64>& b) {
    a = fft_ldg(p);
    b = fft_ldg(p + 1);
}

// p, as a value the compiler cannot see through. Twiddle and spectrum addresses depend on the
// thread only: derived from a plain pointer they would be hoisted out of a kernel's loop and held
// in registers for the whole kernel (some 150 of them); derived from one laundered in the loop,
// they are recomputed where they are used.
template <class P> __device__ __forceinline__ P* fft_launder(P* p) {
    asm volatile("mov.b64 %0, %0;" : "+l"(p));
    return p;
}

// cos and sin of 2πq/32 for q < 16, the constant twiddles of the register DFTs.
__device__ __forceinline__ constexpr double fft_cos32(int q) {
    return q == 0    ? 1.0
           : q == 1  ? 0.98078528040323044913
           : q == 2  ? 0.92387953251128675613
           : q == 3  ? 0.83146961230254523708
           : q == 4  ? 0.70710678118654752440
           : q == 5  ? 0.55557023301960222474
           : q == 6  ? 0.38268343236508977173
           : q == 7  ? 0.19509032201612826785
           : q == 8  ? 0.0
           : q == 9  ? -0.19509032201612826785
           : q == 10 ? -0.38268343236508977173
           : q == 11 ? -0.55557023301960222474
           : q == 12 ? -0.70710678118654752440
           : q == 13 ? -0.83146961230254523708
           : q == 14 ? -0.92387953251128675613
                     : -0.98078528040323044913;
}
__device__ __forceinline__ constexpr double fft_sin32(int q) { return fft_cos32(q >= 8 ? q - 8 : 8 - q); }

// log2(R) bits of k reversed (recursive, so that it folds to a constant wherever k is one).
__device__ __forceinline__ constexpr int fft_bitrev(int k, int R) {
    return R <= 1 ? 0 : ((k & 1) * (R / 2)) | fft_bitrev(k >> 1, R / 2);
}

// The butterfly e ± W_32^q · o (q < 16) of a decimation-in-time level, into lo and hi. A turn
// by c − i·s is c·(re + (s/c)·im, im − (s/c)·re) (or the same with s, c swapped where |s| > |c|,
// so the ratio stays within ±1): two FMAs, and the remaining factor rides in the butterfly's
// FMAs, 6 instructions where a full complex product and two sums take 8.
template <class A>
__device__ __forceinline__ void fft_dit_butterfly(Complex<A> e, Complex<A> o, int q, Complex<A>& lo,
                                                  Complex<A>& hi) {
    if (q == 0) {
        lo = {e.re + o.re, e.im + o.im};
        hi = {e.re - o.re, e.im - o.im};
    } else if (q == 8) {  // W = −i: o·W = (o.im, −o.re)
        lo = {e.re + o.im, e.im - o.re};
        hi = {e.re - o.im, e.im + o.re};
    } else {
        const double c = fft_cos32(q), s = fft_sin32(q);
        const bool by_cos = (c < 0 ? -c : c) >= s;  // s > 0 for 0 < q < 16
        Complex<A> t;
        if (q == 4) {  // s/c = 1: sums, no ratio to round
            t = {o.re + o.im, o.im - o.re};
        } else if (q == 12) {  // s/c = −1
            t = {o.re - o.im, o.im + o.re};
        } else if (by_cos) {
            const A r = (A)(s / c);
            t = {o.re + r * o.im, o.im - r * o.re};
        } else {
            const A r = (A)(c / s);
            t = {r * o.re + o.im, r * o.im - o.re};
        }
        const A f = (A)(by_cos ? c : s);
        lo = {e.re + f * t.re, e.im + f * t.im};
        hi = {e.re - f * t.re, e.im - f * t.im};
    }
}

// The DFT of the R points x[OFF + j·STRIDE] (j < R) into X[0..R), natural order: the DFTs of
// the even and the odd points, then R/2 butterflies (radix-2 decimation in time, unrolled;
// indices are template constants, so everything stays in registers).
template <int R, int STRIDE, int OFF, class A>
__device__ __forceinline__ void fft_dit(const Complex<A>* x, Complex<A>* X) {
    if constexpr (R == 1) {
        X[0] = x[OFF];
    } else {
        Complex<A> ev[R / 2], od[R / 2];
        fft_dit<R / 2, 2 * STRIDE, OFF>(x, ev);
        fft_dit<R / 2, 2 * STRIDE, OFF + STRIDE>(x, od);
#pragma unroll
        for (int k = 0; k < R / 2; ++k) fft_dit_butterfly(ev[k], od[k], k * (32 / R), X[k], X[k + R / 2]);
    }
}

// The forward DFT of the R points v[0..R) (R ≤ 32): point k of the result ends in
// v[fft_bitrev(k, R)], the order the passes' stores and the last pass's reordering expect.
template <int R, class A> __device__ __forceinline__ void fft_dft(Complex<A>* v) {
    Complex<A> X[R];
    fft_dit<R, 1, 0>(v, X);
#pragma unroll
    for (int k = 0; k < R; ++k) v[fft_bitrev(k, R)] = X[k];
}

// Complex slots of shared memory a transform of N points needs (BlockFft::phys pads one slot
// per 16 or 32 points).
template <int N> struct FftSlots {
    static constexpr int value = N + N / 16;
};

// The radices of an N-point transform with E points per thread, first and last equal (so that
// transforms join in registers), up to two in between (0: none); the passes run FIRST, MID1,
// MID2, FIRST. With 32 points a thread, 8192 and 16384 points take three passes (32, 8 or 16,
// 32) instead of four: one round trip through shared memory less, 10 % and 5 % faster on an
// H200 (one-off/fft-conv-harness.cu, docs/conv1d.md).
template <int LOG_N> struct FftRadicesOf16;
template <> struct FftRadicesOf16<9> { static constexpr int FIRST = 8, MID1 = 8, MID2 = 0; };
template <> struct FftRadicesOf16<10> { static constexpr int FIRST = 8, MID1 = 16, MID2 = 0; };
template <> struct FftRadicesOf16<11> { static constexpr int FIRST = 16, MID1 = 8, MID2 = 0; };
template <> struct FftRadicesOf16<12> { static constexpr int FIRST = 16, MID1 = 16, MID2 = 0; };
template <> struct FftRadicesOf16<13> { static constexpr int FIRST = 8, MID1 = 16, MID2 = 8; };
template <> struct FftRadicesOf16<14> { static constexpr int FIRST = 16, MID1 = 8, MID2 = 8; };
template <int LOG_N, int E> struct FftRadices : FftRadicesOf16<LOG_N> {};
template <> struct FftRadices<13, 32> { static constexpr int FIRST = 32, MID1 = 8, MID2 = 0; };
template <> struct FftRadices<14, 32> { static constexpr int FIRST = 32, MID1 = 16, MID2 = 0; };

// The twiddle table: a row per twiddled pass and butterfly class. A pass of radix R over
// sub-transforms of ns points turns point r of butterfly j by w^r, w = W_N^((j mod ns)·N/(ns·R));
// row ns + (j mod ns) holds [w, w^2, w^3, w^4, w^8, w^12] (radix 8 reads the first four), so a
// butterfly takes three 16-byte loads (f32) and forms every other power with one product; the
// rows of a transform with radix-32 passes hold [w, w^2, w^3, w^4, w^8, w^12, w^16, 0] (r ≥ 16
// two products: w^(r − 16) · w^16). The
// passes' ns differ (powers of two), so their rows ns … 2ns − 1 never overlap; the host fills
// them (fft.rs, twiddle_rows). Against the table of the N powers W_N^t with w, w^2, w^4 and w^8
// loaded and the rest as chains of products, 7-15 % faster at 2048-16384 points (H200,
// docs/conv1d.md); a row of all R − 1 powers lost 30-45 % (L1 traffic).
template <int MAX_RADIX> struct FftTwiddleRows {
    static constexpr int WIDTH = MAX_RADIX == 32 ? 8 : 6;
};

// One block transforming N points with N / E threads, E points each (a multiple of every
// radix of the transform).
template <class A, int LOG_N, int E_ = FFT_E> struct BlockFft {
    typedef A Value;
    static constexpr int N = 1 << LOG_N;
    static constexpr int E = E_;
    static constexpr int THREADS = N / E;
    typedef FftRadices<LOG_N, E> Radices;
    static constexpr int R0 = Radices::FIRST;
    static constexpr int B0 = E / R0;  // butterflies per thread in the first and last pass
    typedef FftTwiddleRows<R0> Rows;  // the largest radix is the first
    static constexpr int PAD_SHIFT = R0 == 32 ? 5 : 4;

    // Shared-memory slot of point i: one pad slot per 16 points (32 after a first pass of radix
    // 32), so the strided stores of the first pass (stride R0 points) spread over the banks.
    static __device__ __forceinline__ int phys(int i) { return i + (i >> PAD_SHIFT); }

    // phys(i + c) − phys(i) where i and c have no bit in common (the pad slots are a sum over
    // the bits): so an access at point i + c is the slot of i plus a constant, one address per
    // thread and immediate offsets instead of a shift and adds per access.
    static __device__ __host__ __forceinline__ constexpr int slot_offset(int c) {
        return c + (c >> PAD_SHIFT);
    }

    // point(e) − tid (a multiple of THREADS, so its bits are disjoint from tid's).
    static __device__ __host__ __forceinline__ constexpr int point_offset(int e) {
        return (e / R0) * THREADS + (e % R0) * (N / R0);
    }

    // Point index of element e (= b·R0 + r, r < R0) of the registers in the first/last-pass
    // layout: butterfly j = tid + b·THREADS, point j + r·N/R0.
    static __device__ __forceinline__ int point(int e) { return (int)threadIdx.x + point_offset(e); }

    // The twiddle powers of a row for radix R: p[0..3] = w^1 … w^4, p[4] = w^8, p[5] = w^12,
    // p[6] = w^16.
    template <int R>
    static __device__ __forceinline__ void load_row(Complex<A>* p, const Complex<A>* row) {
        fft_ldg2(row, p[0], p[1]);
        fft_ldg2(row + 2, p[2], p[3]);
        if (R >= 16) fft_ldg2(row + 4, p[4], p[5]);
        if (R == 32) fft_ldg2(row + 6, p[6], p[7]);
    }
    // Turns a butterfly's R points v[0..R) by the powers of its row (load_row).
    template <int R> static __device__ __forceinline__ void twiddle(Complex<A>* v, const Complex<A>* p) {
#pragma unroll
        for (int r = 1; r < R; ++r) {
            // w^r = w^(r mod 16 − lo) · w^lo (· w^16), r mod 16 − lo in {0, 4, 8, 12}
            const int r16 = r & 15, hi = r16 & ~3, lo = r & 3;
            Complex<A> t = {};
            if (r16 != 0) {
                if (hi == 0) {
                    t = p[lo - 1];
                } else {
                    const Complex<A> h = p[hi == 4 ? 3 : hi == 8 ? 4 : 5];
                    t = lo == 0 ? h : cmul(p[lo - 1], h);
                }
            }
            if (r >= 16) t = r16 == 0 ? p[6] : cmul(t, p[6]);
            v[r] = cmul(v[r], t);
        }
    }

    // Turns each butterfly's points by the pass's twiddles (none where ns = 1) and transforms
    // them: point k of butterfly b ends in v[b·R + fft_bitrev(k, R)]. Butterfly j's row is
    // ns + (j mod ns): where ns divides THREADS every butterfly of the thread has the same one,
    // loaded once.
    template <int R>
    static __device__ __forceinline__ void butterflies(Complex<A>* v, const Complex<A>* __restrict__ tw,
                                                       int ns) {
        if (ns > 1) {
            const Complex<A>* const twl = fft_launder(tw);
            Complex<A> p[8];
            if (ns <= THREADS) load_row<R>(p, twl + (ns + ((int)threadIdx.x & (ns - 1))) * Rows::WIDTH);
#pragma unroll
            for (int b = 0; b < E / R; ++b) {
                if (ns > THREADS) {
                    const int j = (int)threadIdx.x + b * THREADS;
                    load_row<R>(p, twl + (ns + (j & (ns - 1))) * Rows::WIDTH);
                }
                twiddle<R>(v + b * R, p);
            }
        }
#pragma unroll
        for (int b = 0; b < E / R; ++b) fft_dft<R>(v + b * R);
    }

    // Writes the transformed butterflies of a pass over sub-transforms of ns points to shared
    // memory in Stockham order.
    // Where point 0 of butterfly j of a pass of radix R over sub-transforms of ns points goes.
    template <int R> static __device__ __forceinline__ int stockham_base(int j, int ns) {
        return (j / ns) * ns * R + (j & (ns - 1));
    }

    template <int R>
    static __device__ __forceinline__ void store(Complex<A>* s, const Complex<A>* v, int ns) {
        // Point base + k·ns of butterfly j: base's bits lie below ns and from ns·R up, k·ns's in
        // between (slot_offset). Where ns divides THREADS, butterfly b's base is butterfly 0's
        // plus b·THREADS·R.
        const int tid = (int)threadIdx.x;
        Complex<A>* const s0 = s + phys(stockham_base<R>(tid, ns));
#pragma unroll
        for (int b = 0; b < E / R; ++b) {
            Complex<A>* const sb = ns <= THREADS ? s0 + slot_offset(b * THREADS * R)
                                                 : s + phys(stockham_base<R>(tid + b * THREADS, ns));
#pragma unroll
            for (int k = 0; k < R; ++k) sb[slot_offset(k * ns)] = v[b * R + fft_bitrev(k, R)];
        }
    }

    // Reads butterflies of radix R: points j + r·N/R.
    template <int R> static __device__ __forceinline__ void load(Complex<A>* v, const Complex<A>* s) {
        // j + r·N/R = tid + (b·THREADS + r·N/R), the second a multiple of THREADS (slot_offset).
        const Complex<A>* const st = s + phys((int)threadIdx.x);
#pragma unroll
        for (int b = 0; b < E / R; ++b) {
#pragma unroll
            for (int r = 0; r < R; ++r) v[b * R + r] = st[slot_offset(b * THREADS + r * (N / R))];
        }
    }

    // One pass from shared memory back to shared memory (every thread of the block calls it;
    // the caller has synchronised after the previous stores).
    template <int R>
    static __device__ __forceinline__ void middle(Complex<A>* s, const Complex<A>* __restrict__ tw, int ns) {
        Complex<A> v[E];
        load<R>(v, s);
        butterflies<R>(v, tw, ns);
        __syncthreads();  // every point is read before any is overwritten
        store<R>(s, v, ns);
        __syncthreads();
    }

    // The transform of the N points in v (first-pass layout, see `point`) into v (the same
    // layout, natural order): the first pass, the middle passes through s, the last pass. The
    // caller synchronises before s is written (the first store) if s was read before.
    static __device__ __forceinline__ void transform(Complex<A>* v, Complex<A>* s,
                                                     const Complex<A>* __restrict__ tw) {
        butterflies<R0>(v, tw, 1);
        store<R0>(s, v, 1);
        __syncthreads();
        int ns = R0;
        if (Radices::MID1 != 0) {
            middle<Radices::MID1 ? Radices::MID1 : 2>(s, tw, ns);
            ns *= Radices::MID1;
        }
        if (Radices::MID2 != 0) {
            middle<Radices::MID2 ? Radices::MID2 : 2>(s, tw, ns);
            ns *= Radices::MID2;
        }
        load<R0>(v, s);
        butterflies<R0>(v, tw, ns);
        // Natural order: point j + k·N/R0 is in v[b·R0 + fft_bitrev(k, R0)]; put it at b·R0 + k.
        Complex<A> u[E];
#pragma unroll
        for (int e = 0; e < E; ++e) u[e] = v[(e / R0) * R0 + fft_bitrev(e % R0, R0)];
#pragma unroll
        for (int e = 0; e < E; ++e) v[e] = u[e];
    }
};

}  // namespace gp
