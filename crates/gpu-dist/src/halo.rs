//! The geometry of a sharded convolution: which outputs each shard computes and which inputs
//! (its own, its neighbours' halos, the boundary's) its window needs. Output `o` reads inputs
//! `o + off .. o + off + w` (`off` the mode's offset) and belongs to the shard holding its
//! window's centre `o + off + w/2`, clamped into the signal: in `same` mode that is input `o`
//! itself, so the output is sharded as the input.

use std::ops::Range;

use gpu_conv1d::{Boundary, Mode};
use gpu_core::Result;

use crate::ShardLayout;

/// One run of a window copied from one shard: `len` elements from `start` (an index local to
/// `shard`) to window position `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Piece {
    /// The shard the elements come from.
    pub shard: usize,
    /// The first element, as an index into that shard.
    pub start: usize,
    /// How many consecutive elements.
    pub len: usize,
    /// Where the first lands in the window.
    pub at: usize,
}

/// The sharded convolution of a signal split by `input` with a mask of `w` taps in `mode`.
#[derive(Debug, Clone)]
pub struct ConvGeometry {
    input: ShardLayout,
    output: ShardLayout,
    w: usize,
    off: i64,
}

impl ConvGeometry {
    /// The geometry, or the error a single-GPU convolution would give (an empty mask, a
    /// `valid` signal shorter than the mask).
    ///
    /// ```
    /// use gpu_conv1d::Mode;
    /// use gpu_dist::{halo::ConvGeometry, ShardLayout};
    /// let input = ShardLayout::even(10, 3).unwrap(); // 4, 3, 3
    /// let same = ConvGeometry::new(&input, 3, Mode::Same).unwrap();
    /// assert_eq!(same.output(), &input);
    /// let full = ConvGeometry::new(&input, 3, Mode::Full).unwrap(); // 12 outputs
    /// assert_eq!(full.output().counts().collect::<Vec<_>>(), [5, 3, 4]);
    /// ```
    pub fn new(input: &ShardLayout, w: usize, mode: Mode) -> Result<Self> {
        let n = input.total();
        let n_out = gpu_conv1d::output_len(n, w, mode)? as i64;
        let off = mode.offset(w);
        let centre = (w / 2) as i64;
        // Shard s starts at the first output whose centre lies at or past its first input.
        let mut counts = Vec::with_capacity(input.shards());
        let mut prev = 0i64;
        for s in 0..input.shards() {
            let end = if s + 1 == input.shards() {
                n_out
            } else {
                (input.range(s + 1).start as i64 - off - centre).clamp(prev, n_out)
            };
            counts.push((end - prev) as usize);
            prev = end;
        }
        Ok(Self {
            input: input.clone(),
            output: ShardLayout::from_counts(&counts)?,
            w,
            off,
        })
    }

    /// How the outputs are sharded.
    pub fn output(&self) -> &ShardLayout {
        &self.output
    }

    /// The window of shard `shard`: its length (its outputs + `w − 1`, or 0 without outputs)
    /// and the pieces to copy into it, in window order; positions no piece covers are zeros
    /// (`Boundary::Zero` ghosts).
    pub fn window(&self, shard: usize, boundary: Boundary) -> (usize, Vec<Piece>) {
        let outs: Range<usize> = self.output.range(shard);
        if outs.is_empty() {
            return (0, Vec::new());
        }
        let n = self.input.total();
        let len = outs.len() + self.w - 1;
        let first = outs.start as i64 + self.off;
        let mut pieces: Vec<Piece> = Vec::new();
        let mut push = |s: usize, start: usize, run: usize, at: usize| match pieces.last_mut() {
            Some(p) if p.shard == s && p.start + p.len == start && p.at + p.len == at => {
                p.len += run
            }
            _ => pieces.push(Piece {
                shard: s,
                start,
                len: run,
                at,
            }),
        };
        let mut at = 0usize;
        while at < len {
            let g = first + at as i64;
            if (0..n as i64).contains(&g) {
                // Inside the signal: one piece to the end of the shard or of the window.
                let i = g as usize;
                let s = self.input.shard_of(i).expect("an index inside the signal");
                let range = self.input.range(s);
                let run = (range.end - i).min(len - at);
                push(s, i - range.start, run, at);
                at += run;
            } else {
                // A ghost (at most w − 1 of them per side): the boundary rule, element by element.
                if let Some(i) = boundary.index(g, n) {
                    let s = self.input.shard_of(i).expect("an index inside the signal");
                    push(s, i - self.input.range(s).start, 1, at);
                }
                at += 1;
            }
        }
        (len, pieces)
    }
}

/// The pieces of `pieces` (a window's) that cover window positions `lo..hi`, cut to that
/// span and placed relative to `lo`: the pieces of a part of a window.
pub fn clip(pieces: &[Piece], lo: usize, hi: usize) -> Vec<Piece> {
    pieces
        .iter()
        .filter_map(|p| {
            let (a, b) = (p.at.max(lo), (p.at + p.len).min(hi));
            (a < b).then(|| Piece {
                shard: p.shard,
                start: p.start + (a - p.at),
                len: b - a,
                at: a - lo,
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every window, rebuilt from its pieces, is what the boundary rule reads, for every mode,
    /// boundary and layout (empty shards, halos wider than shards, wrap across the ends).
    #[test]
    fn windows_read_what_the_boundary_rule_reads() {
        for counts in [
            vec![10usize],
            vec![4, 3, 3],
            vec![0, 5, 0, 1, 4],
            vec![1, 1, 1, 1, 1, 1, 1],
        ] {
            let input = ShardLayout::from_counts(&counts).unwrap();
            let n = input.total();
            let x: Vec<i64> = (0..n as i64).map(|i| 100 + i).collect();
            for w in [1usize, 2, 3, 5, 8, 13] {
                for mode in [Mode::Full, Mode::Same, Mode::Valid] {
                    let Ok(g) = ConvGeometry::new(&input, w, mode) else {
                        assert!(mode == Mode::Valid && n < w);
                        continue;
                    };
                    assert_eq!(
                        g.output().total(),
                        gpu_conv1d::output_len(n, w, mode).unwrap()
                    );
                    if mode == Mode::Same {
                        assert_eq!(g.output(), &input);
                    }
                    for b in Boundary::ALL {
                        for s in 0..input.shards() {
                            let (len, pieces) = g.window(s, b);
                            let mut got = vec![0i64; len];
                            for p in &pieces {
                                let src = &x[input.range(p.shard)][p.start..p.start + p.len];
                                got[p.at..p.at + p.len].copy_from_slice(src);
                            }
                            let outs = g.output().range(s);
                            let first = outs.start as i64 + mode.offset(w);
                            let want: Vec<i64> = (0..len)
                                .map(|k| b.index(first + k as i64, n).map_or(0, |i| x[i]))
                                .collect();
                            assert_eq!(got, want, "{counts:?} w={w} {mode:?} {b:?} shard {s}");
                            // Any part of the window, from the clipped pieces.
                            let (lo, hi) = (len / 3, len - len / 4);
                            let mut part = vec![0i64; hi - lo];
                            for p in clip(&pieces, lo, hi) {
                                let src = &x[input.range(p.shard)][p.start..p.start + p.len];
                                part[p.at..p.at + p.len].copy_from_slice(src);
                            }
                            assert_eq!(part, want[lo..hi], "{counts:?} w={w} clipped");
                            assert!(len == 0 || len == outs.len() + w - 1);
                        }
                    }
                }
            }
        }
    }
}
