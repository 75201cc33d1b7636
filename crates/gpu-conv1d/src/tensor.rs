//! Planning for the tensor-core kernels (`kernels/conv1d_sm80.cu`, `conv1d_tensor_<T>` for f16
//! and bf16): the mask's Toeplitz fragments, the tile shape and the width range. Device-free, so
//! the fragment layout is tested on the CPU against a direct sum.
//!
//! Output `8s + i` of a tile is `Σ_t A[s][t]·B[t][i]` with `A[s][t] = X(p + 8s + t)` and
//! `B[t][i] = M[t − i]` (zero outside the mask); `mma.m16n8k16` takes `B` 16 values of `t` at a
//! time, and lane `l` of a warp holds, for the chunk `c` (`t = 16c + k`), the four values
//! `B[16c + 2q + {0, 1, 8, 9}][g]` with `g = l / 4`, `q = l % 4` (the PTX ISA's B fragment).

use crate::Real;

/// Outputs per block of the tensor-core kernels (4 warps × 4 × 16 segments of 8).
pub(crate) const TENSOR_TILE: usize = 2048;

/// Threads per block of the tensor-core kernels.
pub(crate) const TENSOR_BLOCK: u32 = 128;

/// The longest mask the tensor-core kernels take: their staged span, `(2048 + 16·kt)` 16-bit
/// values, then stays within the 48 KiB of shared memory every device gives a block.
pub const TENSOR_MAX_WIDTH: usize = 16384;

/// Chunks of 16 values of `t` (`t < w + 7`, the Toeplitz matrix's depth).
pub(crate) fn chunks(w: usize) -> usize {
    (w + 7).div_ceil(16)
}

/// Dynamic shared memory of one block for a mask of `w`: the tile and its inputs.
pub(crate) fn shared_bytes(w: usize) -> usize {
    (TENSOR_TILE + 16 * chunks(w)) * 2
}

/// Tiles per row: tile `t` covers outputs `[t·TILE − d, (t + 1)·TILE − d)`, `d < 8`.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn tiles_per_row(n_out: usize) -> u64 {
    ((n_out + 7) as u64).div_ceil(TENSOR_TILE as u64)
}

/// The bits of a 16-bit float (`None` for other types).
fn bits16<T: Real>(v: T) -> Option<u16> {
    let f = v.to_f64() as f32; // exact: every f16 and bf16 value is an f32
    match T::NAME {
        "f16" => Some(gpu_core::f16::from_f32(f).to_bits()),
        "bf16" => Some(gpu_core::bf16::from_f32(f).to_bits()),
        _ => None,
    }
}

/// The B fragments of the effective mask `m` (reversed already for a convolution): `kt` chunks ×
/// 32 lanes × 2 registers, each register two 16-bit values (lower `t` in the low half). `None`
/// for element types the tensor-core kernels do not take.
pub(crate) fn fragments<T: Real>(m: &[T]) -> Option<Vec<u32>> {
    let w = m.len();
    let at = |j: i64| -> Option<u16> {
        if (0..w as i64).contains(&j) {
            bits16(m[j as usize])
        } else {
            bits16(T::ZERO)
        }
    };
    let kt = chunks(w);
    let mut out = Vec::with_capacity(kt * 64);
    for c in 0..kt as i64 {
        for lane in 0..32i64 {
            let (g, q) = (lane / 4, lane % 4);
            let t = 16 * c + 2 * q;
            for base in [t, t + 8] {
                let lo = at(base - g)?;
                let hi = at(base + 1 - g)?;
                out.push(u32::from(lo) | (u32::from(hi) << 16));
            }
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpu_core::{bf16, f16};

    /// The kernel's product, simulated lane by lane from the fragments, equals the direct sum.
    fn simulate<T: Real>(x: &[T], m: &[T]) {
        let w = m.len();
        let frags = fragments(m).unwrap();
        let kt = chunks(w);
        let value = |bits: u32| -> f64 {
            let b = (bits & 0xffff) as u16;
            match T::NAME {
                "f16" => f16::from_bits(b).to_f64(),
                _ => bf16::from_bits(b).to_f64(),
            }
        };
        // Outputs 8s + i for segments s of one 16-segment tile, p = 0.
        for s in 0..16usize {
            for i in 0..8usize {
                let mut sum = 0.0f64;
                for c in 0..kt {
                    for lane in 0..32usize {
                        let (g, q) = (lane / 4, lane % 4);
                        if g != i {
                            continue; // B's column g is output i
                        }
                        let regs = [frags[(c * 32 + lane) * 2], frags[(c * 32 + lane) * 2 + 1]];
                        for (r, reg) in regs.iter().enumerate() {
                            for h in 0..2 {
                                let t = 16 * c + 2 * q + 8 * r + h;
                                let b = value(reg >> (16 * h));
                                let a = x.get(8 * s + t).map_or(0.0, |v| v.to_f64());
                                sum += a * b;
                            }
                        }
                    }
                }
                let o = 8 * s + i;
                let direct: f64 = (0..w)
                    .map(|j| x.get(o + j).map_or(0.0, |v| v.to_f64()) * m[j].to_f64())
                    .sum();
                assert_eq!(sum, direct, "{} w={w} output {o}", T::NAME);
            }
        }
    }

    #[test]
    fn fragments_compute_the_correlation() {
        for w in [1, 2, 7, 9, 16, 17, 31, 64, 100] {
            let x: Vec<f16> = (0..128 + 16 * chunks(w))
                .map(|i| f16::from_f32(((i * 7) % 11) as f32 - 5.0))
                .collect();
            let m: Vec<f16> = (0..w)
                .map(|j| f16::from_f32((j % 5) as f32 - 2.0))
                .collect();
            simulate(&x, &m);
            let xb: Vec<bf16> = x.iter().map(|v| bf16::from_f32(v.to_f32())).collect();
            let mb: Vec<bf16> = m.iter().map(|v| bf16::from_f32(v.to_f32())).collect();
            simulate(&xb, &mb);
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(chunks(1), 1);
        assert_eq!(chunks(9), 1);
        assert_eq!(chunks(10), 2);
        assert_eq!(chunks(127), 9);
        assert_eq!(shared_bytes(TENSOR_MAX_WIDTH), (2048 + 16 * 1025) * 2);
        assert!(shared_bytes(TENSOR_MAX_WIDTH) <= 48 * 1024);
        assert_eq!(tiles_per_row(2041), 1);
        assert_eq!(tiles_per_row(2042), 2);
        assert!(fragments::<f32>(&[1.0]).is_none());
        assert_eq!(fragments::<f16>(&[f16::ONE; 5]).unwrap().len(), 64);
    }
}
