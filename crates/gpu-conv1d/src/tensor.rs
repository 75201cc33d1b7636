//! Planning for the tensor-core kernels (`kernels/conv1d_sm80.cu`, `conv1d_tensor_<T>` for f16,
//! bf16 and f32): the mask's Toeplitz fragments, the tile shape and the width range.
//! Device-free, so the fragment layout is tested on the CPU against a direct sum.
//!
//! Output `16s + i` of a tile is `Σ_t A[i][t]·B[t][s]` with `A[i][t] = M[t − i]` (zero outside
//! the mask) and `B[t][s] = X(p + 16s + t)`. The kernels take `A` `KC` values of `t` at a time
//! (16 for `mma.m16n8k16` on 16-bit values, 8 for `mma.m16n8k8` on TF32); lane `l` of a warp holds
//! the PTX ISA's A fragment of each chunk (`g = l / 4`, `q = l % 4`):
//! 16-bit `A[g][2q..2q+1], A[g+8][2q..2q+1], A[g][2q+8..2q+9], A[g+8][2q+8..2q+9]` (two values
//! per register); TF32 `A[g][q], A[g+8][q], A[g][q+4], A[g+8][q+4]`, as a high part and a low part
//! (error-compensated "3xTF32").

use crate::Real;

/// Outputs per block of the tensor-core kernels (4 warps × 4 × 8 segments of 16).
pub(crate) const TENSOR_TILE: usize = 2048;

/// Threads per block of the tensor-core kernels.
pub(crate) const TENSOR_BLOCK: u32 = 128;

/// The longest mask the tensor-core kernels take ([`Strategy::TensorCore`](crate::Strategy)):
/// the staged span, `2048 + w + 15` values, then needs at most 37 KiB of shared memory for the
/// 16-bit types and 73 KiB for f32.
pub const TENSOR_MAX_WIDTH: usize = 16384;

/// Outputs per block of the warpgroup kernels (64 segments of 64; `kernels/conv1d_sm90a.cu`).
pub(crate) const WARPGROUP_TILE: usize = 4096;

/// The longest mask the warpgroup kernels take ([`Strategy::Warpgroup`](crate::Strategy)): the
/// mask's rows (`128·(2·kt + 7)` bytes, `kt = ⌈(w + 63)/16⌉`) and the staged span then need
/// 47 KiB of shared memory per block.
pub const WARPGROUP_MAX_WIDTH: usize = 2048;

/// Threads per block of the warpgroup kernels (one warpgroup).
pub(crate) const WARPGROUP_BLOCK: u32 = 128;

/// Chunks of 16 values of `t` of the warpgroup product (`t < w + 63`).
pub(crate) fn warpgroup_chunks(w: usize) -> usize {
    (w + 63).div_ceil(16)
}

/// Dynamic shared memory of one warpgroup block for a mask of `w` (the kernel's
/// `WarpgroupLayout`): the mask's rows, 1024 bytes of slack (the span starts on a 1024-byte
/// boundary, as wgmma's 128-byte swizzle needs), then the span or the output staging that reuses
/// it (the tile, a spare granule, 8 elements per 64 of padding), whichever is larger.
pub(crate) fn warpgroup_shared_bytes(w: usize) -> usize {
    let kt = warpgroup_chunks(w);
    let span = (WARPGROUP_TILE + 16 * kt).next_multiple_of(64);
    let outputs = WARPGROUP_TILE + 8 + 8 * (WARPGROUP_TILE / 64 + 1);
    128 * (2 * kt + 7) + 1024 + (2 * span).max(2 * outputs)
}

/// Warpgroup tiles per row (tile `t` covers outputs `[t·4096 − d, (t + 1)·4096 − d)`, `d < 8`).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn warpgroup_tiles_per_row(n_out: usize) -> u64 {
    ((n_out + 7) as u64).div_ceil(WARPGROUP_TILE as u64)
}

/// The warpgroup kernels' copy of the effective mask `m` (16-bit types): `2·kt + 7` rows of 64
/// values, row `g` holding at `8r + k` the value `M[8g + r + k − 63]` (zero outside the mask).
/// Row `(m0 + t0)/8` is then the core matrix of rows `m0..m0+7`, columns `t0..t0+7` of
/// `A[m][t] = M[t + m − 63]`, the reversed Toeplitz matrix the kernel multiplies.
pub(crate) fn warpgroup_rows<T: Real>(m: &[T]) -> Vec<T> {
    let w = m.len() as i64;
    let rows = 2 * warpgroup_chunks(m.len()) + 7;
    (0..rows * 64)
        .map(|i| {
            let (g, r, k) = ((i / 64) as i64, ((i / 8) % 8) as i64, (i % 8) as i64);
            let j = 8 * g + r + k - 63;
            if (0..w).contains(&j) {
                m[j as usize]
            } else {
                T::ZERO
            }
        })
        .collect()
}

/// Whether the tensor-core kernels take `T` (f16, bf16, f32).
pub(crate) fn takes<T: Real>() -> bool {
    matches!(T::NAME, "f16" | "bf16" | "f32")
}

/// Values of `t` per `mma`: 16 (16-bit types) or 8 (TF32).
pub(crate) fn chunk_width<T: Real>() -> usize {
    if std::mem::size_of::<T>() == 2 {
        16
    } else {
        8
    }
}

/// Chunks of `t` (`t < w + 15`, the Toeplitz matrix's depth).
pub(crate) fn chunks<T: Real>(w: usize) -> usize {
    (w + 15).div_ceil(chunk_width::<T>())
}

/// Dynamic shared memory of one block for a mask of `w`: the tile and its inputs, rounded up to
/// whole 128-byte lines (the swizzle permutes 16-byte granules within a line).
pub(crate) fn shared_bytes<T: Real>(w: usize) -> usize {
    let size = std::mem::size_of::<T>();
    let line = 128 / size;
    (TENSOR_TILE + chunk_width::<T>() * chunks::<T>(w)).div_ceil(line) * line * size
}

/// Tiles per row: tile `t` covers outputs `[t·TILE − d, (t + 1)·TILE − d)`, `d` below the
/// elements per 16 bytes.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn tiles_per_row<T: Real>(n_out: usize) -> u64 {
    let v = 16 / std::mem::size_of::<T>();
    ((n_out + v - 1) as u64).div_ceil(TENSOR_TILE as u64)
}

/// `u32`s of the A fragments for a mask of `w`: per chunk, 32 lanes × 4 registers (16-bit
/// types) or × 8 (f32: high and low parts).
pub(crate) fn fragment_len<T: Real>(w: usize) -> usize {
    let regs = if std::mem::size_of::<T>() == 2 { 4 } else { 8 };
    chunks::<T>(w) * 32 * regs
}

/// The bits of a 16-bit float.
fn bits16<T: Real>(v: T) -> u16 {
    let f = v.to_f64() as f32; // exact: every f16 and bf16 value is an f32
    if T::NAME == "f16" {
        gpu_core::f16::from_f32(f).to_bits()
    } else {
        gpu_core::bf16::from_f32(f).to_bits()
    }
}

/// `v` rounded to TF32 (10 mantissa bits, to nearest, ties away from zero: `cvt.rna.tf32.f32`),
/// for finite `v` below 2^127 in magnitude.
fn tf32(v: f32) -> f32 {
    f32::from_bits((v.to_bits() + 0x1000) & !0x1fff)
}

/// `v` as TF32 high and low parts, `hi + lo ≈ v` to about 2^-22 relative.
fn split_tf32(v: f32) -> (f32, f32) {
    let hi = tf32(v);
    (hi, tf32(v - hi))
}

/// Whether the tensor-core kernels take the effective mask `m`: f16, bf16 and f32 masks of at
/// most [`TENSOR_MAX_WIDTH`] elements, f32 ones only of finite values below 2^127 in magnitude
/// (the split products would turn the others into NaN).
pub(crate) fn accepts<T: Real>(m: &[T]) -> bool {
    let finite = |v: &T| v.to_f64().is_finite() && v.to_f64().abs() < 2f64.powi(127);
    takes::<T>()
        && m.len() <= TENSOR_MAX_WIDTH
        && (chunk_width::<T>() == 16 || m.iter().all(finite))
}

/// The A fragments of the effective mask `m` (reversed already for a convolution): per chunk
/// and lane 4 registers (16-bit types) or 8 (f32: the high parts, then the low parts). `None`
/// where [`accepts`] says no.
pub(crate) fn fragments<T: Real>(m: &[T]) -> Option<Vec<u32>> {
    if !accepts(m) {
        return None;
    }
    let w = m.len();
    let kc = chunk_width::<T>() as i64;
    let kt = chunks::<T>(w) as i64;
    let at = |c: i64, i: i64, t: i64| -> T {
        let j = kc * c + t - i;
        if (0..w as i64).contains(&j) {
            m[j as usize]
        } else {
            T::ZERO
        }
    };
    if kc == 16 {
        let mut out = Vec::with_capacity(fragment_len::<T>(w));
        for c in 0..kt {
            for lane in 0..32i64 {
                let (g, q) = (lane / 4, lane % 4);
                for (i, t) in [
                    (g, 2 * q),
                    (g + 8, 2 * q),
                    (g, 2 * q + 8),
                    (g + 8, 2 * q + 8),
                ] {
                    let lo = bits16(at(c, i, t));
                    let hi = bits16(at(c, i, t + 1));
                    out.push(u32::from(lo) | (u32::from(hi) << 16));
                }
            }
        }
        Some(out)
    } else {
        let mut out = Vec::with_capacity(fragment_len::<T>(w));
        for c in 0..kt {
            for lane in 0..32i64 {
                let (g, q) = (lane / 4, lane % 4);
                let parts = [(g, q), (g + 8, q), (g, q + 4), (g + 8, q + 4)]
                    .map(|(i, t)| split_tf32(at(c, i, t).to_f64() as f32));
                out.extend(parts.iter().map(|p| p.0.to_bits()));
                out.extend(parts.iter().map(|p| p.1.to_bits()));
            }
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_core::{bf16, f16};

    /// The warpgroup kernel's product from the mask rows as its descriptors read them (chunk
    /// `c`: core matrix of rows `m0..m0+7`, columns `16c + 8h ..` at row `2c + h + m0/8`; D's row
    /// `m` is output `63 − m` of a segment) equals the direct sum, exactly.
    #[test]
    fn warpgroup_rows_encode_the_reversed_toeplitz_matrix() {
        for w in [1usize, 2, 3, 16, 31, 63, 64, 65, 127, 200] {
            let m: Vec<f32> = (0..w).map(|j| ((j * 37 + 11) % 41) as f32 - 20.0).collect();
            let rows = warpgroup_rows(&m);
            let kt = warpgroup_chunks(w);
            assert_eq!(rows.len(), (2 * kt + 7) * 64);
            let x: Vec<f32> = (0..64 + 16 * kt)
                .map(|i| ((i * 13 + 5) % 17) as f32 - 8.0)
                .collect();
            for mm in 0..64 {
                let mut acc = 0.0f64;
                for c in 0..kt {
                    for t in 0..16 {
                        let (m0, r) = (mm / 8 * 8, mm % 8);
                        let row = (m0 + 16 * c + t / 8 * 8) / 8;
                        let a = rows[row * 64 + 8 * r + t % 8];
                        acc += f64::from(a) * f64::from(x[16 * c + t]);
                    }
                }
                let o = 63 - mm; // output o of the segment reads x[o..o + w]
                let direct: f64 = (0..w).map(|j| f64::from(m[j]) * f64::from(x[o + j])).sum();
                assert_eq!(acc, direct, "w {w} row {mm}");
            }
        }
        assert!(warpgroup_shared_bytes(WARPGROUP_MAX_WIDTH) <= 47 * 1024);
        // Short masks: the output staging is the larger part.
        assert_eq!(
            warpgroup_shared_bytes(1),
            128 * 15 + 1024 + 2 * (4096 + 8 + 8 * 65)
        );
        assert_eq!(warpgroup_tiles_per_row(4089), 1);
        assert_eq!(warpgroup_tiles_per_row(4090), 2);
    }

    /// The dense `A` (16 × KC per chunk) the fragments encode, decoded lane by lane.
    fn decode<T: Real>(frags: &[u32], w: usize) -> Vec<Vec<[f64; 16]>> {
        let kc = chunk_width::<T>();
        let kt = chunks::<T>(w);
        let mut a = vec![vec![[f64::NAN; 16]; 16]; kt]; // a[c][i][t]
        let half = |bits: u16| -> f64 {
            match T::NAME {
                "f16" => f16::from_bits(bits).to_f64(),
                _ => bf16::from_bits(bits).to_f64(),
            }
        };
        for (c, chunk) in a.iter_mut().enumerate() {
            for lane in 0..32 {
                let (g, q) = (lane / 4, lane % 4);
                if kc == 16 {
                    let regs = &frags[(c * 32 + lane) * 4..][..4];
                    let spots = [
                        (g, 2 * q),
                        (g + 8, 2 * q),
                        (g, 2 * q + 8),
                        (g + 8, 2 * q + 8),
                    ];
                    for (reg, (i, t)) in regs.iter().zip(spots) {
                        chunk[i][t] = half(*reg as u16);
                        chunk[i][t + 1] = half((*reg >> 16) as u16);
                    }
                } else {
                    let regs = &frags[(c * 32 + lane) * 8..][..8];
                    let spots = [(g, q), (g + 8, q), (g, q + 4), (g + 8, q + 4)];
                    for (k, (i, t)) in spots.into_iter().enumerate() {
                        let (hi, lo) = (f32::from_bits(regs[k]), f32::from_bits(regs[k + 4]));
                        assert_eq!(hi.to_bits() & 0x1fff, 0, "hi is TF32");
                        assert_eq!(lo.to_bits() & 0x1fff, 0, "lo is TF32");
                        chunk[i][t] = f64::from(hi) + f64::from(lo);
                    }
                }
            }
        }
        a
    }

    /// The kernel's product from the decoded fragments, `Σ_c Σ_t A_c[i][t]·x[16s + KC·c + t]`,
    /// equals the direct sum (exactly for the 16-bit types; to 2^-21 of `Σ|x·m|` for 3xTF32).
    fn simulate<T: Real>(x: &[T], m: &[T]) {
        let w = m.len();
        let kc = chunk_width::<T>();
        let a = decode::<T>(&fragments(m).unwrap(), w);
        for s in 0..8usize {
            for i in 0..16usize {
                let mut sum = 0.0f64;
                for (c, chunk) in a.iter().enumerate() {
                    for (t, &v) in chunk[i][..kc].iter().enumerate() {
                        assert!(
                            !v.is_nan(),
                            "{} w={w}: A[{i}][{t}] of chunk {c} unset",
                            T::NAME
                        );
                        sum += v * x.get(16 * s + kc * c + t).map_or(0.0, |v| v.to_f64());
                    }
                }
                let o = 16 * s + i;
                let (direct, mag) = (0..w).fold((0.0f64, 0.0f64), |(d, g), j| {
                    let p = x.get(o + j).map_or(0.0, |v| v.to_f64()) * m[j].to_f64();
                    (d + p, g + p.abs())
                });
                let tol = if kc == 16 { 0.0 } else { mag * 2f64.powi(-21) };
                assert!(
                    (sum - direct).abs() <= tol,
                    "{} w={w} output {o}: {sum} vs {direct}",
                    T::NAME
                );
            }
        }
    }

    #[test]
    fn fragments_compute_the_correlation() {
        for w in [1, 2, 7, 9, 16, 17, 31, 64, 100] {
            let x: Vec<f32> = (0..128 + 16 * chunks::<f32>(w))
                .map(|i| ((i * 7) % 11) as f32 - 5.0 + 1.0 / 3.0)
                .collect();
            let m: Vec<f32> = (0..w).map(|j| (j % 5) as f32 - 2.0 + 0.1).collect();
            simulate(&x, &m);
            let xh: Vec<f16> = x.iter().map(|&v| f16::from_f32(v)).collect();
            let mh: Vec<f16> = m.iter().map(|&v| f16::from_f32(v)).collect();
            simulate(&xh, &mh);
            let xb: Vec<bf16> = x.iter().map(|&v| bf16::from_f32(v)).collect();
            let mb: Vec<bf16> = m.iter().map(|&v| bf16::from_f32(v)).collect();
            simulate(&xb, &mb);
        }
    }

    #[test]
    fn tf32_split() {
        for v in [
            1.0f32,
            1.0 / 3.0,
            -7.123_456_7e-20,
            3.0e38,
            f32::MIN_POSITIVE,
        ] {
            let (hi, lo) = split_tf32(v);
            let err = (f64::from(hi) + f64::from(lo) - f64::from(v)).abs();
            assert!(
                err <= f64::from(v).abs() * 2f64.powi(-21),
                "{v}: {hi} + {lo}"
            );
        }
        assert_eq!(tf32(1.0 + f32::EPSILON), 1.0);
        // ties away from zero: 1 + 2^-11 is halfway between TF32 1 and 1 + 2^-10
        assert_eq!(tf32(1.0 + 2f32.powi(-11)), 1.0 + 2f32.powi(-10));
        assert!(fragments::<f32>(&[1.0, f32::INFINITY]).is_none());
        assert!(fragments::<f32>(&[1.0, 2f32.powi(127)]).is_none());
        assert!(fragments::<f64>(&[1.0]).is_none());
    }

    /// The model of the kernels' finiteness check on staged 16-bit values
    /// (`TensorPolicy::collect` in kernels/conv1d_sm80.cu): `acc = x·0 + acc` in the element
    /// type, from `acc = +0`. Exact products and sums of zeros stay `+0` (`+0 + −0 = +0` under
    /// round to nearest) for every finite pattern, subnormals and signed zeros included, and turn
    /// NaN at the first infinity or NaN, after which NaN stays. Every 16-bit pattern of both
    /// types, computed in f32 (where `x·0` and a sum of zeros are exact, as in the packed FMA).
    #[test]
    fn finiteness_check_model() {
        fn check(widen: impl Fn(u16) -> f32) {
            let step = |acc: f32, b: u16| widen(b).mul_add(0.0, acc);
            for b in 0..=u16::MAX {
                let x = widen(b);
                let acc = step(0.0, b);
                if x.is_finite() {
                    assert_eq!(acc.to_bits(), 0, "{b:#06x} leaves +0");
                } else {
                    assert!(acc.is_nan(), "{b:#06x} turns NaN");
                    assert!(step(acc, 0x3c00).is_nan(), "NaN stays");
                }
            }
        }
        check(|b| f16::from_bits(b).to_f32());
        check(|b| bf16::from_bits(b).to_f32());
    }

    #[test]
    fn shapes() {
        assert_eq!(chunks::<f16>(1), 1);
        assert_eq!(chunks::<f16>(2), 2);
        assert_eq!(chunks::<f32>(1), 2);
        assert_eq!(chunks::<f16>(127), 9);
        assert_eq!(shared_bytes::<f16>(1), (2048 + 64) * 2);
        assert_eq!(
            shared_bytes::<f16>(TENSOR_MAX_WIDTH),
            (2048 + 16 * 1025 + 48) * 2
        );
        assert!(shared_bytes::<f16>(TENSOR_MAX_WIDTH) <= 48 * 1024);
        assert_eq!(
            shared_bytes::<f32>(TENSOR_MAX_WIDTH),
            (2048 + 8 * 2050 + 16) * 4
        );
        assert_eq!(tiles_per_row::<f16>(2041), 1);
        assert_eq!(tiles_per_row::<f16>(2042), 2);
        assert_eq!(tiles_per_row::<f32>(2045), 1);
        assert_eq!(tiles_per_row::<f32>(2046), 2);
        assert_eq!(fragments::<f16>(&[f16::ONE; 5]).unwrap().len(), 2 * 128);
        assert_eq!(fragments::<f32>(&[1.0; 5]).unwrap().len(), 3 * 256);
        assert_eq!(fragment_len::<f16>(5), 2 * 128);
        assert_eq!(fragment_len::<f32>(5), 3 * 256);
    }
}
