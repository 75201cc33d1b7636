// Overlap-save convolution on block FFTs (gpu-conv1d's FFT path, Strategy::Fft): the device
// layer over the block FFT of gpu_prims/fft.cuh.
//
// Every output o < n_out of row r is y = sum_{j < w} X_r(o + off + j)·M[j] (the contract of
// every conv1d kernel, see kernels/conv1d.cu). A tile of L = N − w + 1 consecutive outputs
// reads the span s[k] = X_r(o0 + off + k), k < N; its outputs are the first L points of the
// circular correlation of s with the mask zero-padded to N points,
//
//     c = IDFT(DFT(s) · conj(DFT(m))),
//
// where no window wraps (o + j ≤ L − 1 + w − 1 = N − 1). One block takes two tiles at once, one
// in the real and one in the imaginary part of a complex transform: the mask is real, so the
// correlation of s_a + i·s_b is c_a + i·c_b. The inverse runs as a forward transform,
// IDFT(Z) = conj(DFT(conj(Z))) / N, with 1/N and the conjugation folded into the spectrum the
// host prepares: H = conj(DFT(m)) / N. So a pair of tiles is one read of its spans, the forward
// transform, the product, the inverse transform and one write of 2L outputs; the transforms
// join in registers, and only their middle passes go through shared memory.
//
// Spans of 2N points (the even-and-odd packing, S = 2: spans of 32768 points, f64 16384, and
// from the device's conv1d.fft_even_odd_from on): one tile's even points in the real and its
// odd points in the imaginary parts of an N-point transform, L = 2N − w + 1 outputs a transform
// instead of 2·(N − w + 1). The product then pairs each point with its mirror
// (conv1d_fft_even_odd_product); everything else is the pairs' code at span positions S·k.
//
// From 16384 span points the host may pass pad = 1 (conv1d_fft): the spans start one position
// early and the spectrum is that of the mask behind one zero, so that spans and outputs share
// their alignment for the pair loads and stores.
//
// Tiles start at `origin` (0 for a launch over whole rows) and pair up within each row: tile t
// of a row covers the launch's outputs origin + t·L ... + L − 1. A launch over part of a row (the
// host pipeline's spans) passes the origin of the whole row's tiling, −(start mod 2L), loads
// every span through the boundary rule and writes only its own outputs, so every output comes
// out bit for bit as in a launch over the whole row, whatever the split.
//
// Non-finite values: a NaN or infinity anywhere in a span would spread through the whole
// transform (both tiles). A pair whose inputs hold one (checked where they load for S = 1; for
// S = 2 the spread itself shows in the results), or whose results are not finite (overflow
// inside the transform), is computed by the direct sums instead, the same fused
// multiply-adds in the same order as conv1d_basic: non-finite inputs give exactly the direct
// path's outputs.
#pragma once
#include <gpu_prims/conv1d_boundary.cuh>
#include <gpu_prims/fft.cuh>
#include <gpu_prims/load.cuh>

namespace gp {

__device__ __forceinline__ f32 conv1d_fft_fma(f32 a, f32 b, f32 c) { return __fmaf_rn(a, b, c); }
__device__ __forceinline__ f64 conv1d_fft_fma(f64 a, f64 b, f64 c) { return __fma_rn(a, b, c); }

// The direct sums for `count` outputs of one row from input position p0 on (conv1d_basic's
// arithmetic), the block's threads striding over the outputs.
template <class T, class A>
__device__ __forceinline__ void conv1d_fft_direct(const T* __restrict__ xr, const A* __restrict__ mask,
                                               T* __restrict__ yr, i64 p0, i64 count, u64 n, u64 w,
                                               int bmode) {
    for (i64 o = threadIdx.x; o < count; o += blockDim.x) {
        const i64 start = p0 + o;
        A acc = A(0);
        for (u64 j = 0; j < w; ++j) {
            const i64 p = start + (i64)j;
            const T v = (p >= 0 && p < (i64)n) ? xr[p] : boundary_load(xr, p, (i64)n, bmode);
            acc = conv1d_fft_fma(widen(v), mask[j], acc);
        }
        yr[o] = narrow<T>(acc);
    }
}

// Tile t of a row: outputs o0 + k, k < L, of the launch (o0 = origin + t·L may be negative in
// a launch over part of a row, see conv1d_fft), of which those with k in [lo, hi) are this
// launch's to write (none where hi <= lo).
struct Conv1dFftTile {
    u64 row;
    i64 o0;
    i64 lo;
    i64 hi;

    __device__ __forceinline__ Conv1dFftTile(u64 row_, u64 t, i64 origin, i64 L, u64 n_out) {
        row = row_;
        o0 = origin + (i64)t * L;
        lo = o0 < 0 ? -o0 : 0;
        const i64 left = (i64)n_out - o0;
        hi = left < L ? left : L;
    }

    // lo and hi clamped to [0, L], which selects the same k < L (L < 2^31).
    __device__ __forceinline__ int lo32(i64 L) const { return (int)(lo < L ? lo : L); }
    __device__ __forceinline__ int hi32() const { return (int)(hi > 0 ? hi : 0); }
};

// Whether the even-and-odd packing's entry conv1d_fft_eo<SPAN>_T moves each point's two values
// with one load or store where the span or the outputs are aligned (PAIRS below). The tiles'
// even length from 16384 span points (conv1d_fft) aligns every tile of a row alike. Measured on
// an H200 (docs/conv1d.md, "Pair loads and stores", "Pair I/O for odd masks and for f16" and
// "Even tiles"):
// - f32 spans of 32768 points (16384-point blocks, waiting on the load/store queue): 2-12 %
//   faster at w = 3071 … 16383, and 5 % more for even masks once the tiles were even.
// - f32 spans of 16384 points: 3-7 % faster to w = 6143 (1 % at 6142), but 2 % slower at 7167
//   and 1 % at 8191. So they keep scalar I/O here, and f32 has a second entry,
//   conv1d_fft_eo16384_pairs_f32, which the host runs to w = 6143 (fft.rs). A run-time test
//   inside one kernel instead slowed the scalar case by 14 % (the cause not studied).
// - f16, both span sizes: 1-8 % faster at every width measured, 3-8 % more for even masks once
//   the tiles were even.
// - f64 (spans of 16384 points only): 16-byte pairs 8 % faster at w = 4095 and 4096, 2-3 % at
//   8191 and 12000.
// - bf16: with spans and outputs aligned alike (fft_pad), the pairs as two 16-bit values ran
//   4 % faster in the 32768-point spans at w = 8191 and 1.6 % at 16383, and 0-2 % slower in
//   the 16384-point ones (w = 3071 … 6000), so pairs in the 32768-point spans only. (Before the
//   alignment: level to 5 % slower, and 2-8 % slower as one 32-bit word split by a shift.)
template <class T, int SPAN> struct Conv1dFftPairIo {
    static constexpr bool value = sizeof(T) == 4 && SPAN == 32768;
};
template <int SPAN> struct Conv1dFftPairIo<f16, SPAN> {
    static constexpr bool value = true;
};
template <int SPAN> struct Conv1dFftPairIo<f64, SPAN> {
    static constexpr bool value = true;
};
template <int SPAN> struct Conv1dFftPairIo<bf16, SPAN> {
    static constexpr bool value = SPAN == 32768;
};

// Whether p is aligned for a Vec<T, 2>.
template <class T> __device__ __forceinline__ bool conv1d_fft_pair_aligned(const T* p) {
    return ((u64)p & (2 * sizeof(T) - 1)) == 0;
}

// A span value in the transform's type, as widen(). bf16 goes in as the 32-bit pair (0, bits)
// rather than by a shift: the same value, and under ptxas 12.0.76 the bf16 kernels then spill
// what the f16 ones do (the 8192-point pairs from compute_80: 20 bytes where the shift left 132).
template <class T> __device__ __forceinline__ typename Accumulator<T>::type conv1d_fft_widen(T x) {
    return widen(x);
}
template <> __device__ __forceinline__ f32 conv1d_fft_widen<bf16>(bf16 x) {
    f32 r;
    asm("mov.b32 %0, {%1, %2};" : "=f"(r) : "h"((unsigned short)0), "h"(x.bits));
    return r;
}

// A point's two span values (the even-and-odd packing's pair at p, aligned) in the transform's
// type, from one load.
template <class T>
__device__ __forceinline__ Complex<typename Accumulator<T>::type> conv1d_fft_widen_pair(const T* p) {
    const Vec<T, 2> q = *reinterpret_cast<const Vec<T, 2>*>(p);
    return {conv1d_fft_widen(q.v[0]), conv1d_fft_widen(q.v[1])};
}

// Non-finite values found by a poisoned sum (the lean checks, Conv1dFftPolicy::LEAN):
// fma(v, 0, acc) stays +0 while every v is finite (signed zeros and subnormals included) and
// turns NaN at the first infinity or NaN; one FMA a value, where the compares take two
// instructions and a chain of predicates.
template <class A> struct Conv1dFftPoison {
    A acc = A(0);
    __device__ __forceinline__ void add(A v) { acc = conv1d_fft_fma(v, A(0), acc); }
    __device__ __forceinline__ bool finite() const { return acc == A(0); }
};

// How spans fill a transform (the packing, a policy beside the block's shape): complex point k
// holds span point S·k of tile a in its real part and point S·k + S − 1 of tile b in its
// imaginary part. S = 1 (pairs): two tiles of N points, a and b, in one N-point transform.
// S = 2 (even and odd points): one tile of 2N points, a = b, its even points in the real parts
// and its odd ones in the imaginary parts; the product then needs each point's mirror
// (conv1d_fft_even_odd_product). Results leave by the same rule: the real part of point k is
// output S·k of tile a, the negated imaginary part output S·k + S − 1 of tile b.
//
// Loads the spans into v (first-pass layout of F), every point through the boundary rule (also
// past what the written outputs read, and for a tile with no outputs here: what a transform
// computes never depends on which of its outputs a launch writes). Spans inside their rows are
// read straight into registers; at the ends of rows the block gathers them through shared
// memory first (a plain loop: the boundary rule's divisions, unrolled 16 times, would cost
// registers the common case needs). Block-uniform; starts with a barrier where it writes s.
// Returns whether every point is finite (by compares, or by Conv1dFftPoison where LEAN); the
// even-and-odd packing (S = 2) does not check and returns true: a non-finite point makes every
// output of its transform non-finite, which the results' check catches (1-4.5 % faster spans
// on an H200, twenty-fourth session; the pairs of S = 1 ran slower without their check).
template <class F, int S, bool LEAN, bool PAIRS, class T, class A>
__device__ __forceinline__ bool conv1d_fft_load(Complex<A>* v, Complex<A>* s,
                                                const T* __restrict__ x, const Conv1dFftTile& ta,
                                                const Conv1dFftTile& tb, u64 n, i64 off,
                                                int bmode) {
    constexpr bool CHECK = S == 1;
    bool finite = true;
    Conv1dFftPoison<A> poison;
    const i64 pa = ta.o0 + off, pb = tb.o0 + off + (S - 1);
    const T* xa = x + ta.row * n;
    const T* xb = x + tb.row * n;
    constexpr i64 SPAN = (i64)S * F::N;
    if (pa >= 0 && pa + SPAN <= (i64)n && pb - (S - 1) >= 0 && pb - (S - 1) + SPAN <= (i64)n) {
        if constexpr (PAIRS) {
            // S = 2: xb + pb is xa + pa + 1, so point k's values are a pair.
            if (conv1d_fft_pair_aligned(xa + pa)) {
#pragma unroll
                for (int e = 0; e < F::E; ++e) {
                    v[e] = conv1d_fft_widen_pair(xa + pa + S * F::point(e));
                    if (CHECK) finite &= isfinite(v[e].re) & isfinite(v[e].im);
                }
                return finite;
            }
        }
#pragma unroll
        for (int e = 0; e < F::E; ++e) {
            const int k = S * F::point(e);
            v[e] = {conv1d_fft_widen(xa[pa + k]), conv1d_fft_widen(xb[pb + k])};
            // Written out here and below: one lambda for both changed the code of 18 kernels
            // with the plain checks.
            if (CHECK && LEAN) {
                poison.add(v[e].re);
                poison.add(v[e].im);
            } else if (CHECK) {
                finite &= isfinite(v[e].re) & isfinite(v[e].im);
            }
        }
        return CHECK && LEAN ? poison.finite() : finite;
    }
    __syncthreads();  // s is free: the previous transform has read it
    for (int k = threadIdx.x; k < F::N; k += F::THREADS)
        s[F::phys(k)] = {conv1d_fft_widen(boundary_load(xa, pa + S * k, (i64)n, bmode)),
                          conv1d_fft_widen(boundary_load(xb, pb + S * k, (i64)n, bmode))};
    __syncthreads();
#pragma unroll
    for (int e = 0; e < F::E; ++e) {
        v[e] = s[F::phys(F::point(e))];
        if (CHECK && LEAN) {
            poison.add(v[e].re);
            poison.add(v[e].im);
        } else if (CHECK) {
            finite &= isfinite(v[e].re) & isfinite(v[e].im);
        }
    }
    return CHECK && LEAN ? poison.finite() : finite;
}

// The product of the even-and-odd packing (S = 2). With z[j] = s[2j] + i·s[2j + 1] and
// Z = DFT_N(z), the 2N-point spectrum of the span is X[k] = (Z[k] + conj(Z[N − k]))/2 +
// W_2N^k·(Z[k] − conj(Z[N − k]))/(2i), and the transform whose inverse gives the outputs'
// even and odd points back in the same packing is linear in Z[k] and conj(Z[N − k]):
// Z'[k] = a[k]·Z[k] + b[k]·conj(Z[N − k]), a and b prepared by the host per mask (f64, with the
// mask's 2N-point spectrum, the 1/N and the split and merge folded in; fft.rs,
// even_odd_tables). Each point needs its mirror N − k, which another thread holds: the block
// exchanges them through s. v holds Z in natural order (F::point) and leaves as conj(Z'), ready
// for the inverse run as a forward transform. The caller synchronises before s is written next.
template <class F, class A>
__device__ __forceinline__ void conv1d_fft_even_odd_product(Complex<A>* v, Complex<A>* s,
                                                            const Complex<A>* __restrict__ ab) {
    constexpr int N = F::N;
    const int tid = (int)threadIdx.x;
    __syncthreads();  // the last pass's reads of s are done
    Complex<A>* const st = s + F::phys(tid);
#pragma unroll
    for (int e = 0; e < F::E; ++e) st[F::slot_offset(F::point_offset(e))] = v[e];
    __syncthreads();
    // Point k = tid + c has its mirror at N − k = (THREADS − tid) + (N − c − THREADS), the two
    // parts' bits disjoint (F::slot_offset) but for k = 0, whose mirror is point 0.
    const Complex<A>* const mt = s + F::phys(F::THREADS - tid);
    const Complex<A>* const abt = fft_launder(ab) + 2 * tid;
#pragma unroll
    for (int e = 0; e < F::E; ++e) {
        const int c0 = F::point_offset(e);
        const Complex<A>* const m =
            c0 == 0 && tid == 0 ? s : mt + F::slot_offset(N - c0 - F::THREADS);
        const Complex<A> z = v[e], c = *m;
        Complex<A> a, b;
        fft_ldg2(abt + 2 * c0, a, b);
        // a·z + b·conj(c), conjugated
        v[e] = {a.re * z.re - a.im * z.im + b.re * c.re + b.im * c.im,
                -(a.re * z.im + a.im * z.re + b.im * c.re - b.re * c.im)};
    }
}

// A transform's result stored as T: narrow(), for finite values only (a block stores only
// after its results' check). bf16 without cvt.rn.bf16.f32 (compute_70) then rounds by hand
// without narrow()'s NaN test, and a pair of bf16 results leaves as one 32-bit word, their two
// roundings packed by one byte permute.
template <class T, class A> __device__ __forceinline__ T conv1d_fft_narrow(A a) { return narrow<T>(a); }
template <class T, class A> __device__ __forceinline__ void conv1d_fft_store_pair(T* p, A a, A b) {
    Vec<T, 2> q;
    q.v[0] = conv1d_fft_narrow<T>(a);
    q.v[1] = conv1d_fft_narrow<T>(b);
    *reinterpret_cast<Vec<T, 2>*>(p) = q;
}
#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ < 800
// x rounded to nearest even at bit 16 (finite x; overflow gives infinity): bf16 in the high half.
__device__ __forceinline__ u32 conv1d_fft_round_bf16(f32 x) {
    const u32 b = __float_as_uint(x);
    return b + 0x7fffu + ((b >> 16) & 1u);
}
template <> __device__ __forceinline__ bf16 conv1d_fft_narrow<bf16, f32>(f32 a) {
    bf16 r;
    r.bits = (unsigned short)(conv1d_fft_round_bf16(a) >> 16);
    return r;
}
template <> __device__ __forceinline__ void conv1d_fft_store_pair<bf16, f32>(bf16* p, f32 a, f32 b) {
    // bytes 2, 3 of a's rounding, then bytes 2, 3 of b's (bytes 6, 7 of the pair)
    *reinterpret_cast<u32*>(p) = __byte_perm(conv1d_fft_round_bf16(a), conv1d_fft_round_bf16(b), 0x7632);
}
#endif

// A tile's outputs of this launch by the direct sums.
template <class T, class A>
__device__ __forceinline__ void conv1d_fft_direct_tile(const T* __restrict__ x,
                                                       const A* __restrict__ mask,
                                                       T* __restrict__ y, const Conv1dFftTile& t,
                                                       u64 n, u64 n_out, i64 off, u64 w, int bmode) {
    if (t.hi > t.lo)
        conv1d_fft_direct<T, A>(x + t.row * n, mask, y + t.row * n_out + (t.o0 + t.lo),
                                t.o0 + t.lo + off, t.hi - t.lo, n, w, bmode);
}

// One transform of the packing S (see conv1d_fft_load): the spans of tiles a and b (a = b for
// S = 2) in, the outputs of this launch out. LEAN (Conv1dFftPolicy): the finiteness checks by
// Conv1dFftPoison, and transforms whose tiles are both whole in this launch store under the
// tile's length alone. PAIRS (S = 2 only): a point's two values load and store as one pair
// where aligned (Conv1dFftPairIo). pad: the spans start that many positions before the
// windows (conv1d_fft); the direct sums read the windows themselves.
//
// PARTS (S = 2 only; conv1d_fft_eo<SPAN>_parts_T): the mask in `parts` parts of part_w taps
// (the last may be shorter), part q's spectrum (N pairs, as conv1d_fft_even_odd_product reads
// them) at spectrum + 2N·q. Output o of a tile is the sum over q of the correlation of part q
// with the span from o0 + off + q·part_w, so the block transforms the tile's `parts` spans one
// after another, adds their products and transforms the sum back once: parts + 1 transforms a
// tile of S·N − part_w − pad + 1 outputs, for masks up to parts·part_w wide (past what one
// span holds).
template <class T, class F, int S, bool LEAN, bool PAIRS, bool PARTS = false>
__device__ __forceinline__ void conv1d_fft_transform(
    Complex<typename F::Value>* v, Complex<typename F::Value>* s, const T* __restrict__ x,
    const Complex<typename F::Value>* __restrict__ spectrum,
    const Complex<typename F::Value>* __restrict__ tw, const typename F::Value* __restrict__ mask,
    T* __restrict__ y, const Conv1dFftTile& ta, const Conv1dFftTile& tb, u64 n, u64 n_out,
    i64 off, u64 w, int bmode, i64 L, int pad, int parts = 1, i64 part_w = 0) {
    typedef typename F::Value A;
    constexpr int E = F::E;
    static_assert(!PAIRS || S == 2, "pairs exist in the even-and-odd packing only");
    static_assert(!PARTS || S == 2, "parts exist in the even-and-odd packing only");
    const bool finite_in =
        conv1d_fft_load<F, S, LEAN, PAIRS>(v, s, x, ta, tb, n, off - pad, bmode);
    // Also the barrier before the first store into s (the previous transform, or the load, read
    // it last).
    if (!__syncthreads_or(!finite_in)) {
        if constexpr (PARTS) {
            // The sum of the parts' products, conjugated (as each product leaves v): held
            // across the next part's transform (in registers or local memory, as the compiler
            // finds room).
            Complex<A> acc[E];
#pragma unroll 1
            for (int q = 0;;) {
                F::transform(v, s, tw);
                conv1d_fft_even_odd_product<F>(v, s, spectrum + (u64)q * 2 * F::N);
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    if (q == 0) {
                        acc[e] = v[e];
                    } else {
                        acc[e].re += v[e].re;
                        acc[e].im += v[e].im;
                    }
                }
                __syncthreads();  // the last reads of s are done before the next stores
                if (++q >= parts) break;  // parts ≥ 1 (the host checks it)
                conv1d_fft_load<F, S, LEAN, PAIRS>(v, s, x, ta, tb, n, off - pad + q * part_w,
                                                   bmode);
                __syncthreads();  // a gather's reads of s are done before the transform's stores
            }
#pragma unroll
            for (int e = 0; e < E; ++e) v[e] = acc[e];
            F::transform(v, s, tw);
        } else {
        // The forward transform, the product, the inverse transform: one copy of the
        // transform's code in a loop, not two inlined one after the other (between which the
        // compiler keeps some 90 more values in registers).
#pragma unroll 1
        for (int phase = 0; phase < 2; ++phase) {
            F::transform(v, s, tw);
            if (phase == 1) break;
            if (S == 2) {
                conv1d_fft_even_odd_product<F>(v, s, spectrum);
            } else {
                const Complex<A>* const spt = fft_launder(spectrum) + threadIdx.x;
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    const Complex<A> z = cmul(v[e], fft_ldg(spt + F::point_offset(e)));
                    v[e] = {z.re, -z.im};
                }
            }
            __syncthreads();  // the last reads of s are done before the inverse stores
        }
        }
        // c = conj(v): the real parts are tile a's outputs, the negated imaginary parts tile
        // b's. Every output of the transform, written here or not (the decision is the
        // transform's).
        bool finite_out = true;
        Conv1dFftPoison<A> poison;
        const int L32 = (int)L;  // L ≤ S·N
#pragma unroll
        for (int e = 0; e < E; ++e) {
            const int k = S * F::point(e);
            if (LEAN) {
                if (k < L) poison.add(v[e].re);
                if (k + S - 1 < L) poison.add(v[e].im);
            } else if (S == 1) {
                // One test for both parts where they share an output index: split like the
                // S = 2 case, the pairs' kernels grew by some 300 PTX lines and ran 2-5 % slower.
                if (k < L) finite_out &= isfinite(v[e].re) & isfinite(v[e].im);
            } else if (sizeof(A) == 4) {
                // As the stores below, by lane 0's index (k = kw + 2·lane): a warp whose points
                // are all past L (the span's far half at long masks) checks nothing, the others
                // check all their points by the poisoned sum, no test a lane. The few past L
                // among them are the transform's own finite values unless the transform
                // overflowed, and then the direct sums are right for the tile too.
                const int kw = S * ((int)threadIdx.x & ~31) + S * F::point_offset(e);
                if (kw < L32) {
                    poison.add(v[e].re);
                    poison.add(v[e].im);
                }
            } else {
                // f64 spans: the compares. The poisoned sum took 64 more bytes of spills and ran
                // 8-9 % slower (H200, twenty-seventh session); 4-byte sums ran 8-10 % faster.
                if (k < L) finite_out &= isfinite(v[e].re);
                if (k + 1 < L) finite_out &= isfinite(v[e].im);
            }
        }
        finite_out &= poison.finite();  // +0 where nothing was added
        if (!__syncthreads_or(!finite_out)) {
            T* ya = y + ta.row * n_out + ta.o0;
            T* yb = y + tb.row * n_out + tb.o0 + (S - 1);
            // The tiles' bounds in 32 bits (k < L ≤ S·N): one compare an output, not two.
            const int alo = ta.lo32(L), ahi = ta.hi32(), blo = tb.lo32(L), bhi = tb.hi32();
            if (LEAN && ta.lo == 0 && tb.lo == 0 && ta.hi == L && tb.hi == L) {
#pragma unroll
                for (int e = 0; e < E; ++e) {
                    const int k = S * F::point(e);
                    if (k < L) ya[k] = conv1d_fft_narrow<T>(v[e].re);
                    if (k + S - 1 < L) yb[k] = conv1d_fft_narrow<T>(-v[e].im);
                }
                return;
            }
            if constexpr (PAIRS) {
                // S = 2: yb is ya + 1. A warp's pairs of point e are lane 0's index kw and the
                // 31 pairs after it (k = kw + 2·lane), so kw alone says whether every pair is
                // inside the tile's outputs (one store each: a branch the warp takes as one),
                // none is (nothing to store: the span's far half at long masks) or some are (the
                // stores one by one). Tests of kw, not a vote a point: w = 4095 5 % faster
                // (H200, twenty-seventh session).
                if (conv1d_fft_pair_aligned(ya)) {
                    const int k0 = S * ((int)threadIdx.x & ~31);
#pragma unroll
                    for (int e = 0; e < E; ++e) {
                        const int k = S * F::point(e);
                        const int kw = k0 + S * F::point_offset(e);
                        if (kw >= alo && kw + 2 * 31 + 1 < ahi) {
                            conv1d_fft_store_pair(ya + k, v[e].re, -v[e].im);
                        } else if ((kw + 2 * 31 >= alo && kw < ahi) || (kw + 2 * 31 + 1 >= blo && kw + 1 < bhi)) {
                            if (k >= alo && k < ahi) ya[k] = conv1d_fft_narrow<T>(v[e].re);
                            if (k + 1 >= blo && k + 1 < bhi) yb[k] = conv1d_fft_narrow<T>(-v[e].im);
                        }
                    }
                    return;
                }
            }
#pragma unroll
            for (int e = 0; e < E; ++e) {
                const int k = S * F::point(e);
                if (k >= alo && k < ahi) ya[k] = conv1d_fft_narrow<T>(v[e].re);
                if (k + S - 1 >= blo && k + S - 1 < bhi) yb[k] = conv1d_fft_narrow<T>(-v[e].im);
            }
            return;
        }
    }
    // A NaN or infinity in the spans, or a transform that overflowed: the direct sums.
    conv1d_fft_direct_tile<T, A>(x, mask, y, ta, n, n_out, off, w, bmode);
    if (S == 1) conv1d_fft_direct_tile<T, A>(x, mask, y, tb, n, n_out, off, w, bmode);
}

// The kernel: tiles of L = S·N − (w + pad) + 1 outputs (even from 16384 span points), two at a
// time in one transform (tiles 2p and 2p + 1 of a row, S = 1) or one at a time (S = 2). pad (0
// or 1): the host's spectrum is that of the mask behind pad zeros and the spans start pad
// positions before the windows, the same correlation; the host takes 1 where the windows'
// offset is odd from 16384 span points (fft_pad in crates/gpu-conv1d/src/fft.rs), so that the
// spans of the pair I/O start aligned where the outputs do.
//
// PARTS (conv1d_fft_transform): the mask in `parts` parts of part_w taps, tiles of
// S·N − (part_w + pad) + 1 outputs.
template <class T, int LOG_N, int E = FFT_E, int S = 1, bool LEAN = false, bool PAIRS = false,
          bool PARTS = false>
__device__ __forceinline__ void conv1d_fft(const T* __restrict__ x,
                                           const Complex<typename Accumulator<T>::type>* __restrict__ spectrum,
                                           const Complex<typename Accumulator<T>::type>* __restrict__ tw,
                                           const typename Accumulator<T>::type* __restrict__ mask,
                                           T* __restrict__ y, u64 rows, u64 n, u64 n_out, i64 off,
                                           u64 w, int bmode, u64 tiles_per_row, i64 origin,
                                           int pad, Complex<typename Accumulator<T>::type>* s,
                                           int parts = 1, u64 part_w = 0) {
    typedef typename Accumulator<T>::type A;
    typedef BlockFft<A, LOG_N, E> F;
    constexpr int N = F::N;
    // Outputs per tile: S·N − (w + pad) + 1 (the host keeps w + pad ≤ S·N; PARTS: part_w for
    // w), one less where that is odd from 16384 span points on, so every tile of a row starts
    // with the same alignment and the pair I/O holds for all of them (fft_tile in
    // crates/gpu-conv1d/src/fft.rs mirrors it).
    i64 L = (i64)S * N - (i64)((PARTS ? part_w : w) + pad) + 1;
    if (S * N >= 16384 && L > 1) L &= ~(i64)1;
    // Transforms per row: pairs of tiles 2p and 2p + 1 of one row (never across rows: a row's
    // results do not depend on the rows launched with it), or single tiles.
    const u64 per_row = S == 1 ? tiles_per_row / 2 + (tiles_per_row & 1) : tiles_per_row;
    const u64 count = rows * per_row;
    for (u64 i = blockIdx.x; i < count; i += gridDim.x) {
        const u64 row = i / per_row;
        const u64 p = i - row * per_row;
        Complex<A> v[E];
        if (S == 1) {
            const Conv1dFftTile t0(row, 2 * p, origin, L, n_out);
            const Conv1dFftTile t1(row, 2 * p + 1, origin, L, n_out);
            conv1d_fft_transform<T, F, 1, LEAN, false>(v, s, x, spectrum, tw, mask, y, t0, t1,
                                                       n, n_out, off, w, bmode, L, pad);
        } else {
            const Conv1dFftTile t(row, p, origin, L, n_out);
            conv1d_fft_transform<T, F, 2, LEAN, PAIRS, PARTS>(v, s, x, spectrum, tw, mask, y, t,
                                                              t, n, n_out, off, w, bmode, L, pad,
                                                              parts, (i64)part_w);
        }
    }
}

}  // namespace gp

namespace gp {

// The block's shape for N-point transforms of A values (the policy, apart from the algorithm):
// E points per thread and the blocks per SM its register bound leaves room for. 16 points
// (N / 16 threads) in about 768 threads of f32 transforms (some 80 registers each) or 384 of
// f64 ones; 32 points from 4096 f32 points on, where 16 left one block of 512 threads per SM
// at 8192 points and 64 registers a thread (120 bytes of spills) at 16384: 32 points ran 1.03x
// / 1.20x / 1.22x faster at 4096 / 8192 / 16384 on an H200 (one-off/fft-conv-harness.cu,
// docs/conv1d.md). Mirrored by fft_points_per_thread in crates/gpu-conv1d/src/fft.rs.
template <class A, int N> struct Conv1dFftPolicy {
    static constexpr int E = (sizeof(A) == 4 && N >= 4096) ? 32 : 16;
    static constexpr int THREADS = N / E;
    static constexpr int WIDE_BLOCKS = N == 4096 ? 3 : N == 8192 ? 2 : 1;
    static constexpr int NARROW_BLOCKS = (sizeof(A) == 4 ? 768 : 384) / THREADS;
    static constexpr int MIN_BLOCKS =
        E == 32 ? WIDE_BLOCKS : (NARROW_BLOCKS > 0 ? NARROW_BLOCKS : 1);
    // The lean checks and stores (conv1d_fft_transform) for 4-byte accumulators up to 4096
    // points: f32 with twiddle rows ran 4 % faster at 2048 points and 8 % at 4096, 3 % slower at
    // 8192 (more spills) and level at 16384 (H200, one-off/fft-conv-harness.cu); f16 7 % and
    // 12 % faster at 2048 and 4096 through the library, f64 5 % slower at 2048. Once the blocks'
    // index arithmetic was lean too (twenty-fourth session), the 8192-point pairs took them
    // without spilling and ran 7 % faster with them than without (f32, w = 127 … 2047, H200);
    // the even-and-odd spans (8192- and 16384-point transforms) spilled more with them and keep
    // the plain checks (LEAN_EVEN_ODD).
    static constexpr bool LEAN = sizeof(A) == 4 && N <= 8192;
    static constexpr bool LEAN_EVEN_ODD = false;
};

}  // namespace gp

// The entry point conv1d_fft<N>_<tname> (N = 2^LOG_N points, Conv1dFftPolicy's threads,
// dynamic shared memory of FftSlots<N> complex A values): the spectrum is N complex A values,
// the twiddles the rows of BlockFft's FftTwiddleRows.
#define GP_CONV1D_FFT_ENTRY(LOG_N, N, tname, T, A)                                               \
    extern "C" __global__ void __launch_bounds__(gp::Conv1dFftPolicy<A, N>::THREADS,             \
                                                 gp::Conv1dFftPolicy<A, N>::MIN_BLOCKS)          \
        conv1d_fft##N##_##tname(                                                                 \
            const T* __restrict__ x, const gp::Complex<A>* __restrict__ spectrum,                \
            const gp::Complex<A>* __restrict__ twiddles, const A* __restrict__ mask,             \
            T* __restrict__ y, gp::u64 rows, gp::u64 n, gp::u64 n_out, gp::i64 off, gp::u64 w,  \
            int boundary, gp::u64 tiles_per_row, gp::i64 origin, int pad) {                      \
        extern __shared__ __align__(16) unsigned char conv1d_fft_smem[];                         \
        gp::conv1d_fft<T, LOG_N, gp::Conv1dFftPolicy<A, N>::E, 1,                                \
                       gp::Conv1dFftPolicy<A, N>::LEAN>(                                         \
            x, spectrum, twiddles, mask, y, rows, n, n_out, off, w, boundary, tiles_per_row,     \
            origin, pad, reinterpret_cast<gp::Complex<A>*>(conv1d_fft_smem));                    \
    }

// The entry point conv1d_fft_eo<SPAN><variant>_<tname> of the even-and-odd packing: spans of
// SPAN = 2N real points through N-point transforms (N = 2^LOG_N, Conv1dFftPolicy<A, N>'s
// threads, dynamic shared memory of FftSlots<N> complex A values): `spectrum` is the host's N
// pairs (a[k], b[k]) (2N complex A values); `twiddles` the N-point transform's rows
// (FftTwiddleRows). PAIRS: the pair loads and stores (Conv1dFftPairIo).
#define GP_CONV1D_FFT_EVEN_ODD_KERNEL(LOG_N, SPAN, variant, tname, T, A, PAIRS)                   \
    extern "C" __global__ void __launch_bounds__(gp::Conv1dFftPolicy<A, SPAN / 2>::THREADS,      \
                                                 gp::Conv1dFftPolicy<A, SPAN / 2>::MIN_BLOCKS)   \
        conv1d_fft_eo##SPAN##variant##_##tname(                                                  \
            const T* __restrict__ x, const gp::Complex<A>* __restrict__ spectrum,                \
            const gp::Complex<A>* __restrict__ twiddles, const A* __restrict__ mask,             \
            T* __restrict__ y, gp::u64 rows, gp::u64 n, gp::u64 n_out, gp::i64 off, gp::u64 w,  \
            int boundary, gp::u64 tiles_per_row, gp::i64 origin, int pad) {                      \
        static_assert(SPAN == 2 << LOG_N, "a span of 2N points");                                \
        extern __shared__ __align__(16) unsigned char conv1d_fft_smem[];                         \
        gp::conv1d_fft<T, LOG_N, gp::Conv1dFftPolicy<A, SPAN / 2>::E, 2,                        \
                       gp::Conv1dFftPolicy<A, SPAN / 2>::LEAN_EVEN_ODD, PAIRS>(                  \
            x, spectrum, twiddles, mask, y, rows, n, n_out, off, w, boundary, tiles_per_row,     \
            origin, pad, reinterpret_cast<gp::Complex<A>*>(conv1d_fft_smem));                    \
    }

// conv1d_fft_eo<SPAN>_<tname>, with the pair I/O where Conv1dFftPairIo has it.
#define GP_CONV1D_FFT_EVEN_ODD_ENTRY(LOG_N, SPAN, tname, T, A)                                    \
    GP_CONV1D_FFT_EVEN_ODD_KERNEL(LOG_N, SPAN, , tname, T, A,                                    \
                                  (gp::Conv1dFftPairIo<T, SPAN>::value))

// conv1d_fft_eo<SPAN>_parts_<tname>: the mask in parts (conv1d_fft_transform's PARTS), the
// arguments of conv1d_fft_eo<SPAN>_<tname> and then `parts` and `part_w`; `spectrum` holds each
// part's N pairs, one part after another (2N complex A values each), then the twiddles.
#define GP_CONV1D_FFT_EVEN_ODD_PARTS_ENTRY(LOG_N, SPAN, tname, T, A)                              \
    extern "C" __global__ void __launch_bounds__(gp::Conv1dFftPolicy<A, SPAN / 2>::THREADS,      \
                                                 gp::Conv1dFftPolicy<A, SPAN / 2>::MIN_BLOCKS)   \
        conv1d_fft_eo##SPAN##_parts_##tname(                                                     \
            const T* __restrict__ x, const gp::Complex<A>* __restrict__ spectrum,                \
            const gp::Complex<A>* __restrict__ twiddles, const A* __restrict__ mask,             \
            T* __restrict__ y, gp::u64 rows, gp::u64 n, gp::u64 n_out, gp::i64 off, gp::u64 w,  \
            int boundary, gp::u64 tiles_per_row, gp::i64 origin, int pad, int parts,             \
            gp::u64 part_w) {                                                                     \
        static_assert(SPAN == 2 << LOG_N, "a span of 2N points");                                \
        extern __shared__ __align__(16) unsigned char conv1d_fft_smem[];                         \
        gp::conv1d_fft<T, LOG_N, gp::Conv1dFftPolicy<A, SPAN / 2>::E, 2,                        \
                       gp::Conv1dFftPolicy<A, SPAN / 2>::LEAN_EVEN_ODD,                          \
                       (gp::Conv1dFftPairIo<T, SPAN>::value), true>(                             \
            x, spectrum, twiddles, mask, y, rows, n, n_out, off, w, boundary, tiles_per_row,     \
            origin, pad, reinterpret_cast<gp::Complex<A>*>(conv1d_fft_smem), parts, part_w);     \
    }

// conv1d_fft_eo<SPAN>_pairs_<tname>: always the pair I/O.
#define GP_CONV1D_FFT_EVEN_ODD_PAIRS_ENTRY(LOG_N, SPAN, tname, T, A)                              \
    GP_CONV1D_FFT_EVEN_ODD_KERNEL(LOG_N, SPAN, _pairs, tname, T, A, true)
