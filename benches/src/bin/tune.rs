//! The tuning tool (issue 24): sweeps the policies of gpu_core::tuning on the GPU it runs on and
//! writes a table for that GPU, to commit or to point `GPU_PRIMS_TUNING` at (docs/tuning.md).
//!
//! ```text
//! tune [--out DIR] [--quick] [--only reduce,scan,columns,conv1d] [--reps N]
//! ```
//! Writes `DIR/tuning.txt` (the table: `device =` and the keys whose best value was measured),
//! `DIR/tune.md` (every measurement, ×copy of a same-run device-to-device copy) and
//! `DIR/tune.json`. Each candidate is checked against the CPU before it is timed (exact i32
//! results; f32 within its tolerance), and a candidate that fails is never chosen.
//!
//! - `reduce.block`: the default sum and max of 2^28 f32 and i32 (2^24 with `--quick`) at
//!   128 … 1024 threads; the best geometric mean of ×copy.
//! - `scan.*`: the inclusive sum of f32 and i32 at 2^20 … 2^28 in register tiles of 256, 512
//!   and 1024 threads and staged tiles of 256, 512, 768 and 1024; each length class's best
//!   register block, the staged tiles' best block over the lengths where they win, and the
//!   shortest length from which they win at every longer one.
//! - `conv1d.*`: `Strategy::Auto` with each crossover forced both ways (the key at its extremes)
//!   at the widths around it, f32 and f64 `same` correlations of 2^24 outputs; the crossover is
//!   the start that makes the widths from there on fastest together (the largest sum of log
//!   gains), interpolated between it and the width before where the gains cross. Every run is
//!   checked against f64 sums at 4096 sampled outputs. `conv1d.fft_span_from` (f32 w 640 …
//!   1150) and `conv1d.fft_span_from_f64` (f64 w 1220 … 2047) the same way: the block FFT's
//!   16384-point spans against the size table's shorter ones. `conv1d.fft_parts_from` (f32 w
//!   16383 … 28671) and `_f64` (8191 … 13311): the mask in parts against one span;
//!   `conv1d.fft_parts_to` (f32 49151 … 131071) and `_f64` (20000 … 49151): cuFFT against the
//!   parts, the key the last width before cuFFT wins (`conv1d.cufft_min_width`'s sweep runs
//!   without the parts). `conv1d.wide_tile_from`: wide against
//!   16-output tiles, f32 w 7, 15 and 31 at 2^20 … 2^28; the shortest length from which the
//!   wide tiles win (geometric mean) there and at every longer one. `conv1d.half_wide_tile_from`:
//!   the same for f16 w 3, 7 and 10 (the widths `Auto` runs on FMAs in long 16-bit rows).
//! - `scan.prefetch_*` (compute capability 9.0+): the default inclusive sum of f32 and i32 at
//!   2^24 … 2^28 without the L2 prefetch and with it at 3.5, 7 and 14 MiB ahead; the distance
//!   best at the longest length, and the shortest length from which it wins at every longer one.
//! - `scan.warp_specialized_from` (compute capability 9.0+): the look-back tiles against the
//!   warp-specialised kernel at 2^21 … 2^28 (2^17 … 2^24 with `--quick`), the default inclusive
//!   sums of i32 and f32; the shortest length from which the kernel wins
//!   (geometric mean) there and at every longer one. The prefetch sweep runs with it off.
//! - `scan.column_staged_from` (`--only columns`; compute capability 9.0+): cumsum along axis 0 of C-order
//!   matrices of 64 and 1024 columns, f32 and i32, at 2^22 … 2^28 (2^18 … 2^24 with `--quick`),
//!   the staged long column spans off and on; the shortest length from which they win
//!   (geometric mean) there and at every longer one. Then `scan.shaped_prefetch_from` the same
//!   way: the L2 prefetch of the column spans off and on (it also governs the segment tiles,
//!   which the tool does not time).

use std::process::ExitCode;

#[cfg(feature = "cuda")]
fn main() -> ExitCode {
    match run::main() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("tune: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(not(feature = "cuda"))]
fn main() -> ExitCode {
    eprintln!("tune: built without the `cuda` feature");
    ExitCode::from(2)
}

#[cfg(feature = "cuda")]
mod run {
    use std::fmt::Write as _;

    use gpu_conv1d::{Conv1d, Mode, Options, Path as ConvPath, Real};
    use gpu_core::{data, DeviceArray, DeviceArrayD, Element, Gpu, Op, Tuning};
    use gpu_prims_benches::gpu::{time_copy, time_gpu, GpuTiming};
    use gpu_prims_benches::tune_choice::{
        best_index, crossover, geo_mean, prefetch_choice, wins_from,
    };
    use gpu_reduce::{Reduce, Workspace};
    use gpu_scan::{Scan, ScanKind, ScanOptions, TileStaging};
    use serde_json::{json, Value};

    const WS_KEY: &str = "scan.warp_specialized_from";

    struct Args {
        out: String,
        quick: bool,
        only: Vec<String>,
        reps: usize,
    }

    fn args() -> Result<Args, String> {
        let mut a = Args {
            out: "tune-out".into(),
            quick: false,
            only: vec![
                "reduce".into(),
                "scan".into(),
                "columns".into(),
                "conv1d".into(),
            ],
            reps: 15,
        };
        let mut it = std::env::args().skip(1);
        while let Some(f) = it.next() {
            let mut value = || it.next().ok_or(format!("{f} needs a value"));
            match f.as_str() {
                "--out" => a.out = value()?,
                "--quick" => a.quick = true,
                "--only" => a.only = value()?.split(',').map(str::to_string).collect(),
                "--reps" => a.reps = value()?.parse().map_err(|_| "bad --reps")?,
                "-h" | "--help" => {
                    return Err(
                        "tune [--out DIR] [--quick] [--only reduce,scan,columns,conv1d] [--reps N]"
                            .into(),
                    )
                }
                o => return Err(format!("unknown option `{o}`")),
            }
        }
        for o in &a.only {
            if !["reduce", "scan", "columns", "conv1d"].contains(&o.as_str()) {
                return Err(format!("unknown part `{o}`"));
            }
        }
        Ok(a)
    }

    /// One timed candidate.
    struct Sample {
        part: &'static str,
        case: String,
        candidate: String,
        ms: f64,
        copy_fraction: f64,
        ok: bool,
    }

    struct Tuner {
        gpu: Gpu,
        timing: GpuTiming,
        samples: Vec<Sample>,
        table: Tuning,
        notes: Vec<String>,
        /// Keys held apart from the built-in values while one crossing is swept.
        base: Vec<(&'static str, u64)>,
    }

    impl Tuner {
        /// The built-in values with `key = value` over them (`Tuning::new()` plus `base` and
        /// one key).
        fn with_key(&self, key: &str, value: u64) -> gpu_core::Result<()> {
            let mut t = Tuning::new();
            for &(k, v) in &self.base {
                t.set(k, v)?;
            }
            t.set(key, value)?;
            self.gpu.set_tuning(t)
        }

        fn copy_ms(&self, bytes: usize) -> gpu_core::Result<f64> {
            Ok(time_copy(&self.gpu, bytes, &self.timing)?.median_ms)
        }

        fn record(
            &mut self,
            part: &'static str,
            case: String,
            candidate: String,
            ms: f64,
            copy_fraction: f64,
            ok: bool,
        ) {
            println!(
                "tune: {part} {case} {candidate}: {ms:.4} ms, {copy_fraction:.3}x copy{}",
                if ok { "" } else { " WRONG" }
            );
            self.samples.push(Sample {
                part,
                case,
                candidate,
                ms,
                copy_fraction,
                ok,
            });
        }

        /// Sets `key` to the shortest of `logs` from which `what` wins (`wins`, one per length)
        /// there and at every longer length, 2^40 (never) where it does not win at the longest;
        /// with a note saying which.
        fn set_wins_from(
            &mut self,
            key: &'static str,
            logs: &[u32],
            wins: &[bool],
            what: &str,
        ) -> gpu_core::Result<()> {
            let from = wins_from(wins).map_or(1u64 << 40, |i| 1u64 << logs[i]);
            self.table.set(key, from)?;
            self.notes.push(if from < 1 << 40 {
                format!(
                    "{key} = 2^{}: {what} win from there on",
                    from.trailing_zeros()
                )
            } else {
                format!(
                    "{key} = 2^40 (never): {what} do not win at 2^{}",
                    logs[logs.len() - 1]
                )
            });
            Ok(())
        }

        // ---- reduce ------------------------------------------------------------------------

        fn reduce<T: Element>(&mut self, n: usize, blocks: &[u32]) -> gpu_core::Result<Vec<f64>>
        where
            T::Accumulator: PartialEq + std::fmt::Debug,
        {
            let host: Vec<T> = data::exact(n, Op::Sum, 7);
            let x = self.gpu.upload(&host)?;
            let mut out = self.gpu.alloc::<T::Accumulator>(1)?;
            let mut ws = Workspace::new(&self.gpu)?;
            let copy = self.copy_ms(n * std::mem::size_of::<T>())?;
            let mut scores = vec![Vec::new(); blocks.len()];
            for op in [Op::Sum, Op::Max] {
                let want = gpu_reduce::cpu::par_reduce(&host, op)?;
                for (i, &b) in blocks.iter().enumerate() {
                    self.with_key("reduce.block", b as u64)?;
                    let r = Reduce::new(&self.gpu).stream(self.gpu.stream());
                    r.reduce_into(&x, op, &mut out, &mut ws)?;
                    let ok = out.to_vec()?[0] == want;
                    let t = time_gpu(&self.gpu, self.gpu.stream(), &self.timing, |_| {
                        r.reduce_into(&x, op, &mut out, &mut ws)
                    })?;
                    // A reduction reads n values: half a copy's bytes.
                    let f = copy / 2.0 / t.median_ms;
                    scores[i].push(if ok { f } else { 0.0 });
                    self.record(
                        "reduce",
                        format!("{} {} 2^{}", op.name(), T::NAME, n.trailing_zeros()),
                        format!("block {b}"),
                        t.median_ms,
                        f,
                        ok,
                    );
                }
            }
            self.gpu.set_tuning(Tuning::new())?;
            Ok(scores.iter().map(|s| geo_mean(s)).collect())
        }

        fn tune_reduce(&mut self, n: usize) -> gpu_core::Result<()> {
            let blocks = [128u32, 256, 512, 1024];
            let a = self.reduce::<f32>(n, &blocks)?;
            let b = self.reduce::<i32>(n, &blocks)?;
            let score: Vec<f64> = a.iter().zip(&b).map(|(x, y)| geo_mean(&[*x, *y])).collect();
            let best = best_index(&score);
            self.table.set("reduce.block", blocks[best] as u64)?;
            self.notes.push(format!(
                "reduce.block = {}: geometric mean {:.3}x copy ({})",
                blocks[best],
                score[best],
                blocks
                    .iter()
                    .zip(&score)
                    .map(|(b, s)| format!("{b}: {s:.3}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            Ok(())
        }

        // ---- scan --------------------------------------------------------------------------

        /// ×copy of every (staging, block) at `n` for `T`, in `configs` order (0 when wrong).
        fn scan<T: Element>(
            &mut self,
            n: usize,
            configs: &[(TileStaging, u32)],
        ) -> gpu_core::Result<Vec<f64>> {
            let mut candidates = Vec::new();
            for &(staging, block) in configs {
                // Staged blocks through the tuning keys, as the built-in rule gives them (an
                // explicit block_size takes powers of two only); register blocks explicitly.
                let mut t = Tuning::new();
                let o = if staging == TileStaging::Staged {
                    t.set("scan.staged_block_medium", block as u64)?;
                    t.set("scan.staged_block", block as u64)?;
                    ScanOptions::inclusive().staging(staging)
                } else {
                    ScanOptions::inclusive().staging(staging).block_size(block)
                };
                candidates.push((format!("{staging:?} {block}"), t, o));
            }
            self.scan_candidates::<T>(n, &candidates)
        }

        /// ×copy of the inclusive sum of `n` values of `T` for each candidate (its options under
        /// its tuning table), in order; 0 when wrong or refused.
        fn scan_candidates<T: Element>(
            &mut self,
            n: usize,
            candidates: &[(String, Tuning, ScanOptions)],
        ) -> gpu_core::Result<Vec<f64>> {
            let host: Vec<T> = data::exact(n, Op::Sum, 11);
            let want = gpu_scan::cpu::par_scan(&host, Op::Sum, ScanKind::Inclusive)?;
            let x = self.gpu.upload(&host)?;
            let mut y = self.gpu.alloc::<T>(n)?;
            let copy = self.copy_ms(n * std::mem::size_of::<T>())?;
            let mut out = Vec::new();
            for (label, table, options) in candidates {
                self.gpu.set_tuning(table.clone())?;
                let scan = Scan::new(&self.gpu)
                    .options(*options)
                    .stream(self.gpu.stream());
                let ok = match scan.scan_into(&x, &mut y, Op::Sum) {
                    Ok(()) => y.to_vec()? == want,
                    Err(e) => {
                        self.notes
                            .push(format!("scan {label} at 2^{}: {e}", n.trailing_zeros()));
                        out.push(0.0);
                        continue;
                    }
                };
                let t = time_gpu(&self.gpu, self.gpu.stream(), &self.timing, |_| {
                    scan.scan_into(&x, &mut y, Op::Sum)
                })?;
                let f = copy / t.median_ms;
                out.push(if ok { f } else { 0.0 });
                self.record(
                    "scan",
                    format!("inclusive sum {} 2^{}", T::NAME, n.trailing_zeros()),
                    label.clone(),
                    t.median_ms,
                    f,
                    ok,
                );
            }
            self.gpu.set_tuning(Tuning::new())?;
            Ok(out)
        }

        fn tune_scan(&mut self, logs: &[u32]) -> gpu_core::Result<()> {
            let staged = self.gpu.properties().compute_capability >= (8, 0);
            let mut configs = Vec::new();
            for b in [256u32, 512, 1024] {
                configs.push((TileStaging::Registers, b));
            }
            // Staged tiles take any whole number of warps: 768 beside the powers of two (it
            // changes how many waves of tiles a length fills; docs/tuning.md).
            const STAGED_BLOCKS: [u32; 4] = [256, 512, 768, 1024];
            if staged {
                for b in STAGED_BLOCKS {
                    configs.push((TileStaging::Staged, b));
                }
            }
            let staged_range = 3..3 + STAGED_BLOCKS.len();
            // score[size][config]: geometric mean over f32 and i32.
            let mut score = Vec::new();
            for &l in logs {
                let a = self.scan::<f32>(1 << l, &configs)?;
                let b = self.scan::<i32>(1 << l, &configs)?;
                score.push(
                    a.iter()
                        .zip(&b)
                        .map(|(x, y)| geo_mean(&[*x, *y]))
                        .collect::<Vec<_>>(),
                );
            }
            let registers: Vec<usize> = (0..3).collect();
            let best_registers = |sizes: &[usize]| -> usize {
                let s: Vec<f64> = registers
                    .iter()
                    .map(|&c| geo_mean(&sizes.iter().map(|&i| score[i][c]).collect::<Vec<_>>()))
                    .collect();
                registers[best_index(&s)]
            };
            let idx = |lo: u32, hi: u32| -> Vec<usize> {
                (0..logs.len())
                    .filter(|&i| logs[i] >= lo && logs[i] < hi)
                    .collect()
            };
            let classes = [
                ("scan.block_small", idx(0, 21)),
                ("scan.block_medium", idx(21, 25)),
                ("scan.block_large", idx(25, 64)),
            ];
            for (key, sizes) in &classes {
                if sizes.is_empty() {
                    continue;
                }
                let c = best_registers(sizes);
                self.table.set(key, configs[c].1 as u64)?;
                self.notes.push(format!(
                    "{key} = {} (register tiles at 2^{:?})",
                    configs[c].1,
                    sizes.iter().map(|&i| logs[i]).collect::<Vec<_>>()
                ));
            }
            if staged {
                // Per size: does the best staged config beat the best register one?
                let best_of = |i: usize, range: std::ops::Range<usize>| {
                    range.map(|c| score[i][c]).fold(0.0f64, f64::max)
                };
                let wins: Vec<bool> = (0..logs.len())
                    .map(|i| best_of(i, staged_range.clone()) > best_of(i, 0..3))
                    .collect();
                self.set_wins_from("scan.staged_from", logs, &wins, "staged tiles")?;
                let winning: Vec<usize> = (0..logs.len()).filter(|&i| wins[i]).collect();
                let large_from = self.gpu.tuned("scan.large_from");
                // Each length class's best staged block, over the lengths where staged tiles
                // win (the longest length of the class where they never do).
                for (key, large) in [
                    ("scan.staged_block_medium", false),
                    ("scan.staged_block", true),
                ] {
                    let class: Vec<usize> = (0..logs.len())
                        .filter(|&i| ((1u64 << logs[i]) >= large_from) == large)
                        .collect();
                    let Some(&last) = class.last() else { continue };
                    let mut over: Vec<usize> = class
                        .iter()
                        .copied()
                        .filter(|i| winning.contains(i))
                        .collect();
                    if over.is_empty() {
                        over.push(last);
                    }
                    let s: Vec<f64> = staged_range
                        .clone()
                        .map(|c| geo_mean(&over.iter().map(|&i| score[i][c]).collect::<Vec<_>>()))
                        .collect();
                    let c = staged_range.start + best_index(&s);
                    self.table.set(key, configs[c].1 as u64)?;
                    self.notes.push(format!(
                        "{key} = {} (staged tiles at 2^{:?}: {})",
                        configs[c].1,
                        over.iter().map(|&i| logs[i]).collect::<Vec<_>>(),
                        s.iter()
                            .zip(STAGED_BLOCKS)
                            .map(|(v, b)| format!("{b}: {v:.3}"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    ));
                }
            }
            Ok(())
        }

        // ---- conv1d ------------------------------------------------------------------------

        /// ×copy of `Strategy::Auto` for a `same` correlation of `n` values with a mask of `w`,
        /// `key` set to `value`; the path that ran.
        #[allow(clippy::too_many_arguments)]
        fn conv<T: Real + Element>(
            &mut self,
            host: &[T],
            x: &DeviceArray<T>,
            y: &mut DeviceArray<T>,
            copy: f64,
            w: usize,
            key: &str,
            value: u64,
        ) -> gpu_core::Result<(f64, ConvPath)> {
            self.with_key(key, value)?;
            let mask: Vec<T> = data::uniform(w, w as u64, -1.0, 1.0);
            let conv = Conv1d::correlation(&self.gpu, &mask, Options::new().mode(Mode::Same))?
                .stream(self.gpu.stream());
            let path = conv.path(x.len())?;
            conv.run_into(x, y)?;
            self.gpu.stream().synchronize()?;
            let ok = same_correlation_ok(host, &mask, &y.to_vec()?);
            let t = time_gpu(&self.gpu, self.gpu.stream(), &self.timing, |_| {
                conv.run_into(x, y)
            })?;
            self.gpu.set_tuning(Tuning::new())?;
            let f = copy / t.median_ms;
            self.record(
                "conv1d",
                format!("same {} w {w}", T::NAME),
                format!("{key}={value} ({path:?})"),
                t.median_ms,
                f,
                ok,
            );
            Ok((if ok { f } else { 0.0 }, path))
        }

        /// Where `key = low` (the path past the crossover) should start among `widths`, against
        /// `key = high`: the start that gains most over the widths from there on, the crossing
        /// interpolated between it and the width before; `None` where no start gains.
        fn crossover<T: Real + Element>(
            &mut self,
            n: usize,
            key: &'static str,
            widths: &[usize],
            low: u64,
            high: u64,
        ) -> gpu_core::Result<Option<usize>> {
            let host: Vec<T> = data::uniform(n, 5, -1.0, 1.0);
            let x = self.gpu.upload(&host)?;
            let mut y = self.gpu.alloc::<T>(n)?;
            let copy = self.copy_ms(n * std::mem::size_of::<T>())?;
            // Gain of the path past the crossover, per width (its ×copy over the other's).
            let mut gain = Vec::new();
            for &w in widths {
                let (before, p0) = self.conv(&host, &x, &mut y, copy, w, key, high)?;
                let (after, p1) = self.conv(&host, &x, &mut y, copy, w, key, low)?;
                if p0 == p1 {
                    self.notes.push(format!(
                        "{key}: w {w} ran {p0:?} both ways: not a crossover"
                    ));
                }
                gain.push(after / before);
            }
            Ok(crossover(widths, &gain))
        }

        /// `key` (`conv1d.wide_tile_from`, `conv1d.half_wide_tile_from`): `T` `same`
        /// correlations at `logs` lengths, wide tiles (the key at 1) against 16-output tiles (at
        /// 2^40) for `widths`; the shortest length from which the wide tiles' geometric mean
        /// wins at it and every longer one, 2^40 (never) where they do not win at the longest.
        fn tune_wide_tiles<T: Real + Element>(
            &mut self,
            logs: &[u32],
            key: &'static str,
            widths: &[usize],
        ) -> gpu_core::Result<()> {
            let mut wins = Vec::new();
            for &lg in logs {
                let n = 1usize << lg;
                let host: Vec<T> = data::uniform(n, 5, -1.0, 1.0);
                let x = self.gpu.upload(&host)?;
                let mut y = self.gpu.alloc::<T>(n)?;
                let copy = self.copy_ms(n * std::mem::size_of::<T>())?;
                let mut gain = Vec::new();
                for &w in widths {
                    let (narrow, _) = self.conv(&host, &x, &mut y, copy, w, key, 1 << 40)?;
                    let (wide, path) = self.conv(&host, &x, &mut y, copy, w, key, 1)?;
                    if !matches!(path, ConvPath::RegisterTiledFixedWide { .. }) {
                        self.notes
                            .push(format!("{key}: {} w {w} at 2^{lg} ran {path:?}", T::NAME));
                    }
                    gain.push(wide / narrow);
                }
                wins.push(geo_mean(&gain) > 1.0);
            }
            let what = format!("wide tiles (geometric mean of {} w {widths:?})", T::NAME);
            self.set_wins_from(key, logs, &wins, &what)
        }

        // ---- L2 prefetch ------------------------------------------------------------------

        /// `scan.prefetch_from` and `scan.prefetch_kib`: the default inclusive sum of f32 and
        /// i32 at `logs` lengths without the prefetch and with it `kibs` ahead (geometric mean of
        /// the two types).
        fn tune_scan_prefetch(&mut self, logs: &[u32], kibs: &[u64]) -> gpu_core::Result<()> {
            let (from_key, kib_key) = ("scan.prefetch_from", "scan.prefetch_kib");
            if self.gpu.properties().compute_capability < (9, 0) {
                self.notes.push(format!(
                    "{from_key}: no bulk L2 prefetch below compute capability 9.0"
                ));
                return Ok(());
            }
            // No prefetch (the key at 2^40), then each distance from any length on; the
            // warp-specialised kernel off throughout (it takes long sums, without prefetch).
            let mut off = Tuning::new();
            off.set(from_key, 1 << 40)?;
            off.set(WS_KEY, 1 << 40)?;
            let mut candidates = vec![("no prefetch".to_string(), off, ScanOptions::inclusive())];
            for &k in kibs {
                let mut t = Tuning::new();
                t.set(WS_KEY, 1 << 40)?;
                t.set(from_key, 1)?;
                t.set(kib_key, k)?;
                candidates.push((format!("prefetch {k} KiB"), t, ScanOptions::inclusive()));
            }
            let mut scores = Vec::new();
            for &lg in logs {
                let a = self.scan_candidates::<f32>(1 << lg, &candidates)?;
                let b = self.scan_candidates::<i32>(1 << lg, &candidates)?;
                scores.push(a.iter().zip(&b).map(|(x, y)| geo_mean(&[*x, *y])).collect());
            }
            let (best, from) = prefetch_choice(&scores);
            let from = from.map_or(1u64 << 40, |i| 1u64 << logs[i]);
            self.table.set(from_key, from)?;
            if best > 0 {
                self.table.set(kib_key, kibs[best - 1])?;
            }
            self.notes.push(if from < 1 << 40 {
                format!(
                    "{from_key} = 2^{}, {kib_key} = {}: the prefetch wins from there on",
                    from.trailing_zeros(),
                    kibs[best - 1]
                )
            } else {
                format!(
                    "{from_key} = 2^40 (never): the prefetch does not win at 2^{}",
                    logs[logs.len() - 1]
                )
            });
            Ok(())
        }

        /// `scan.warp_specialized_from`: the look-back tiles (the key at 2^40) against the
        /// warp-specialised kernel (the key at 1) at `logs` lengths, the default (`Auto`)
        /// inclusive sums of i32 and f32 (the fixed-order look-back); the shortest length from
        /// which the kernel wins (geometric mean of the two types) there and at every longer one.
        fn tune_scan_warp_specialized(&mut self, logs: &[u32]) -> gpu_core::Result<()> {
            if self.gpu.properties().compute_capability
                < gpu_scan::plan::WARP_SPECIALIZED_MIN_COMPUTE
            {
                self.notes.push(format!(
                    "{WS_KEY}: no warp-specialised scan below compute capability 9.0"
                ));
                return Ok(());
            }
            let with = |from: u64| -> gpu_core::Result<Tuning> {
                let mut t = Tuning::new();
                t.set(WS_KEY, from)?;
                Ok(t)
            };
            let candidates = [
                (
                    "look-back tiles".to_string(),
                    with(1 << 40)?,
                    ScanOptions::inclusive(),
                ),
                (
                    "warp-specialised".to_string(),
                    with(1)?,
                    ScanOptions::inclusive(),
                ),
            ];
            let mut wins = Vec::new();
            for &lg in logs {
                let a = self.scan_candidates::<i32>(1 << lg, &candidates)?;
                let b = self.scan_candidates::<f32>(1 << lg, &candidates)?;
                wins.push(geo_mean(&[a[1], b[1]]) > geo_mean(&[a[0], b[0]]));
            }
            self.set_wins_from(WS_KEY, logs, &wins, "warp-specialised blocks")
        }

        /// The inclusive sum along axis 0 of a C-order matrix of `1 << lg` values in `cols`
        /// columns with `key` set to `value` (the rest built in): ×copy of the input's bytes,
        /// 0 where it failed or differs from the CPU (exact i32 and f32 data), and the plan.
        fn column_scan<T: Element>(
            &mut self,
            lg: u32,
            cols: usize,
            key: &'static str,
            value: u64,
        ) -> gpu_core::Result<(f64, String)> {
            let n = 1usize << lg;
            let shape = [n / cols, cols];
            let host: Vec<T> = data::exact(n, Op::Sum, 13);
            let view = ndarray::ArrayView2::from_shape(shape, &host).expect("a C-order matrix");
            let want =
                gpu_scan::cpu::scan_axis(view, ndarray::Axis(0), Op::Sum, ScanKind::Inclusive)?;
            let strides = [cols as isize, 1];
            let x = DeviceArrayD::from_parts(self.gpu.upload(&host)?, 0, &shape, &strides)?;
            let mut y = DeviceArrayD::<T>::zeros_like_order(&self.gpu, &shape, &strides)?;
            let copy = self.copy_ms(n * std::mem::size_of::<T>())?;
            let mut table = Tuning::new();
            table.set(key, value)?;
            self.gpu.set_tuning(table)?;
            let scan = Scan::new(&self.gpu).stream(self.gpu.stream());
            let plan = scan.scan_axis_into(&x, ndarray::Axis(0), Op::Sum, &mut y)?;
            let ok = y.to_array()?.into_dimensionality::<ndarray::Ix2>().ok() == Some(want);
            let t = time_gpu(&self.gpu, self.gpu.stream(), &self.timing, |_| {
                scan.scan_axis_into(&x, ndarray::Axis(0), Op::Sum, &mut y)
                    .map(drop)
            })?;
            self.gpu.set_tuning(Tuning::new())?;
            let f = copy / t.median_ms;
            self.record(
                "scan",
                format!("cumsum {} {}x{cols} axis 0", T::NAME, n / cols),
                format!("{key} = {value}"),
                t.median_ms,
                f,
                ok,
            );
            Ok((if ok { f } else { 0.0 }, plan.to_string()))
        }

        /// A `scan.*` key of the long-span columns scans (compute capability 9.0+): the
        /// inclusive sum along axis 0 of C-order matrices of 64 and 1024 columns (one tile and
        /// eight of long column spans), f32 and i32, at `logs` lengths, the key off (2^40) and
        /// on (1); the shortest length from which on wins (geometric mean of the four) there and
        /// at every longer one. `in_plan`: what the plan of a run with it on says (noted where
        /// it does not).
        fn tune_columns_key(
            &mut self,
            key: &'static str,
            logs: &[u32],
            what: &str,
            in_plan: &str,
        ) -> gpu_core::Result<()> {
            if self.gpu.properties().compute_capability < (9, 0) {
                self.notes
                    .push(format!("{key}: not used below compute capability 9.0"));
                return Ok(());
            }
            let mut wins = Vec::new();
            for &lg in logs {
                let mut gain = Vec::new();
                for cols in [64usize, 1024] {
                    let (off, _) = self.column_scan::<f32>(lg, cols, key, 1 << 40)?;
                    let (on, plan) = self.column_scan::<f32>(lg, cols, key, 1)?;
                    if !plan.contains(in_plan) {
                        self.notes
                            .push(format!("{key}: 2^{lg} x {cols} ran {plan}"));
                    }
                    gain.push(on / off);
                    let (off, _) = self.column_scan::<i32>(lg, cols, key, 1 << 40)?;
                    let (on, _) = self.column_scan::<i32>(lg, cols, key, 1)?;
                    gain.push(on / off);
                }
                wins.push(geo_mean(&gain) > 1.0);
            }
            self.set_wins_from(key, logs, &wins, what)
        }

        fn tune_conv1d(&mut self, n: usize) -> gpu_core::Result<()> {
            const DIRECT_F32: [usize; 10] = [33, 40, 48, 56, 63, 64, 72, 80, 96, 127];
            const DIRECT_F64: [usize; 7] = [48, 63, 64, 72, 80, 96, 127];
            const CUFFT: [usize; 6] = [16383, 20479, 24575, 26623, 28671, 30719];
            // The widths where the FFT size table gives spans shorter than 16384 points, up to
            // its own crossing (f32 1150, f64 2047): the long spans (the key at 2) against the
            // table (the key at its largest).
            const SPAN_F32: [usize; 9] = [640, 700, 750, 767, 850, 900, 1023, 1100, 1150];
            const SPAN_F64: [usize; 8] = [1220, 1300, 1450, 1500, 1600, 1700, 1850, 2047];
            // The mask in parts (Strategy::FftParts) against one span (or cuFFT, from
            // conv1d.cufft_min_width) below the built-in crossing, and cuFFT against the parts
            // past it: `_to` keys are the last width before cuFFT wins (the key at 2: cuFFT).
            const PARTS_F32: [usize; 6] = [16383, 20479, 22527, 24575, 26623, 28671];
            const PARTS_F64: [usize; 6] = [8191, 9215, 10239, 11263, 12287, 13311];
            const PARTS_TO_F32: [usize; 5] = [49151, 65535, 81919, 98303, 131071];
            const PARTS_TO_F64: [usize; 6] = [20000, 24575, 28671, 32767, 40959, 49151];
            // key, widths, low, high, f64, `_to` key
            type Key = (&'static str, &'static [usize], u64, u64, bool, bool);
            let plan: [Key; 9] = [
                (
                    "conv1d.fft_min_width",
                    &DIRECT_F32,
                    2,
                    1 << 20,
                    false,
                    false,
                ),
                (
                    "conv1d.fft_min_width_f64",
                    &DIRECT_F64,
                    2,
                    1 << 20,
                    true,
                    false,
                ),
                ("conv1d.cufft_min_width", &CUFFT, 2, 1 << 40, false, false),
                ("conv1d.fft_span_from", &SPAN_F32, 2, 1 << 20, false, false),
                (
                    "conv1d.fft_span_from_f64",
                    &SPAN_F64,
                    2,
                    1 << 20,
                    true,
                    false,
                ),
                (
                    "conv1d.fft_parts_from",
                    &PARTS_F32,
                    2,
                    1 << 40,
                    false,
                    false,
                ),
                (
                    "conv1d.fft_parts_from_f64",
                    &PARTS_F64,
                    2,
                    1 << 40,
                    true,
                    false,
                ),
                (
                    "conv1d.fft_parts_to",
                    &PARTS_TO_F32,
                    2,
                    1 << 40,
                    false,
                    true,
                ),
                (
                    "conv1d.fft_parts_to_f64",
                    &PARTS_TO_F64,
                    2,
                    1 << 40,
                    true,
                    true,
                ),
            ];
            for (key, widths, low, high, f64_, to) in plan {
                // The parts would take that sweep's widths: cuFFT against one span only.
                self.base = if key == "conv1d.cufft_min_width" {
                    vec![("conv1d.fft_parts_from", 1 << 40)]
                } else {
                    Vec::new()
                };
                let found = if f64_ {
                    self.crossover::<f64>(n, key, widths, low, high)?
                } else {
                    self.crossover::<f32>(n, key, widths, low, high)?
                };
                self.base.clear();
                match found {
                    Some(w) if to => {
                        self.table.set(key, w as u64 - 1)?;
                        self.notes.push(format!(
                            "{key} = {}: cuFFT wins from w = {w} to {}",
                            w - 1,
                            widths[widths.len() - 1]
                        ));
                    }
                    Some(w) => {
                        self.table.set(key, w as u64)?;
                        self.notes.push(format!(
                            "{key} = {w}: the path past it wins from w = {w} to {}",
                            widths[widths.len() - 1]
                        ));
                    }
                    None => self.notes.push(format!(
                        "{key}: the path past it does not win at w = {}; left at the built-in value",
                        widths[widths.len() - 1]
                    )),
                }
            }
            Ok(())
        }
    }

    /// Whether `y` is the `same` correlation of `x` with `mask` (zero boundary) at 4096 sampled
    /// outputs (both ends and a stride through the middle), within 1e-5 (f32; 1e-12 f64) of
    /// `Σ|x·m|` of each window against the f64 sums: the direct kernels' rounding and the FFT
    /// paths' both fit.
    fn same_correlation_ok<T: Real + Element>(x: &[T], mask: &[T], y: &[T]) -> bool {
        let (n, w) = (x.len(), mask.len());
        let off = (w / 2) as i64;
        // f32 sums: 1e-5 of the window's magnitude; 16-bit results are also rounded once to
        // their type (half an ulp of an output no larger than that magnitude).
        let rel = match std::mem::size_of::<T>() {
            8 => 1e-12,
            4 => 1e-5,
            _ => 1e-5 + T::EPSILON.to_f64(),
        };
        let stride = (n / 2048).max(1);
        let picks = (0..n.min(1024))
            .chain(n.saturating_sub(1024)..n)
            .chain((0..n).step_by(stride));
        picks.into_iter().all(|o| {
            let (mut s, mut mag) = (0.0f64, 0.0f64);
            for (j, m) in mask.iter().enumerate() {
                let p = o as i64 - off + j as i64;
                if (0..n as i64).contains(&p) {
                    let t = x[p as usize].to_f64() * m.to_f64();
                    s += t;
                    mag += t.abs();
                }
            }
            (y[o].to_f64() - s).abs() <= rel * mag + 1e-30
        })
    }

    pub fn main() -> Result<bool, String> {
        let a = args()?;
        let gpu = Gpu::default_device().map_err(|e| e.to_string())?;
        let p = gpu.properties().clone();
        let profile = p.profile();
        println!(
            "tune: {} (compute {}.{}, {} SMs, {:.2} TB/s peak, {:.1} GB/s per SM: {} memory)",
            p.name,
            p.compute_capability.0,
            p.compute_capability.1,
            p.sm_count,
            profile.memory_bandwidth / 1e12,
            profile.bandwidth_per_sm() / 1e9,
            if profile.fast_memory() {
                "fast"
            } else {
                "ordinary"
            }
        );
        let mut t = Tuner {
            gpu,
            timing: GpuTiming {
                reps: a.reps,
                ..Default::default()
            },
            samples: Vec::new(),
            table: Tuning::new().for_device(p.name.clone()),
            base: Vec::new(),
            notes: Vec::new(),
        };
        let big = if a.quick { 24 } else { 28 };
        let run = |t: &mut Tuner| -> gpu_core::Result<()> {
            if a.only.iter().any(|o| o == "reduce") {
                t.tune_reduce(1 << big)?;
            }
            if a.only.iter().any(|o| o == "scan") {
                let logs: Vec<u32> = (20..=big).step_by(2).collect();
                t.tune_scan(&logs)?;
                let prefetch_logs: Vec<u32> = (big - 4..=big).collect();
                t.tune_scan_prefetch(&prefetch_logs, &[3584, 7168, 14336])?;
                let ws_logs: Vec<u32> = (big - 7..=big).collect();
                t.tune_scan_warp_specialized(&ws_logs)?;
            }
            if a.only.iter().any(|o| o == "columns") {
                let staged_logs: Vec<u32> = (big - 6..=big).step_by(2).collect();
                t.tune_columns_key(
                    "scan.column_staged_from",
                    &staged_logs,
                    "the staged column spans",
                    "in shared memory",
                )?;
                // With the staged spans as built in (the keys are set one at a time).
                t.tune_columns_key(
                    "scan.shaped_prefetch_from",
                    &staged_logs,
                    "the L2 prefetch of the column spans",
                    "L2 prefetch",
                )?;
            }
            if a.only.iter().any(|o| o == "conv1d") {
                t.tune_conv1d(1 << if a.quick { 22 } else { 24 })?;
                let logs: Vec<u32> = (20..=big).step_by(2).collect();
                t.tune_wide_tiles::<f32>(&logs, "conv1d.wide_tile_from", &[7, 15, 31])?;
                // The widths Auto runs on FMAs in long 16-bit rows (tensor cores from 11 on).
                t.tune_wide_tiles::<gpu_core::f16>(
                    &logs,
                    "conv1d.half_wide_tile_from",
                    &[3, 7, 10],
                )?;
            }
            Ok(())
        };
        let result = run(&mut t);
        std::fs::create_dir_all(&a.out).map_err(|e| e.to_string())?;
        let mut md = String::new();
        let _ = writeln!(
            md,
            "# bin tune on {}\n\n{:.2} TB/s peak over {} SMs ({:.1} GB/s per SM, {} memory \
             by the built-in rule).\n",
            p.name,
            profile.memory_bandwidth / 1e12,
            p.sm_count,
            profile.bandwidth_per_sm() / 1e9,
            if profile.fast_memory() {
                "fast"
            } else {
                "ordinary"
            }
        );
        let _ = writeln!(md, "## Chosen\n");
        for n in &t.notes {
            let _ = writeln!(md, "- {n}");
        }
        let _ = writeln!(
            md,
            "\n## Every candidate\n\n| part | case | candidate | ms | ×copy | checked |\n| --- | --- | --- | ---: | ---: | --- |"
        );
        for s in &t.samples {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {:.4} | {:.3} | {} |",
                s.part,
                s.case,
                s.candidate,
                s.ms,
                s.copy_fraction,
                if s.ok { "ok" } else { "WRONG" }
            );
        }
        let out = std::path::Path::new(&a.out);
        let table = format!(
            "# gpu-prims tuning table written by `bin tune` on {} ({} SMs, {:.2} TB/s peak).\n\
             # Point GPU_PRIMS_TUNING at this file, or load it with Tuning::read and Gpu::set_tuning.\n{}",
            p.name,
            p.sm_count,
            profile.memory_bandwidth / 1e12,
            t.table
        );
        let samples: Vec<Value> = t
            .samples
            .iter()
            .map(|s| {
                json!({"part": s.part, "case": s.case, "candidate": s.candidate, "ms": s.ms,
                       "copy_fraction": s.copy_fraction, "ok": s.ok})
            })
            .collect();
        let j = json!({"device": p.name, "sm_count": p.sm_count,
                       "memory_bandwidth": profile.memory_bandwidth,
                       "fast_memory": profile.fast_memory(), "table": t.table.to_string(),
                       "notes": t.notes, "samples": samples});
        let write = |name: &str, text: String| {
            std::fs::write(out.join(name), text).map_err(|e| format!("{name}: {e}"))
        };
        write("tuning.txt", table.clone())?;
        write("tune.md", md)?;
        write(
            "tune.json",
            serde_json::to_string_pretty(&j).unwrap_or_default(),
        )?;
        println!("{table}");
        result.map_err(|e| e.to_string())?;
        Ok(t.samples.iter().all(|s| s.ok))
    }
}
