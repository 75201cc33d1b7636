//! CPU axis reductions (gpu_reduce::cpu::reduce_axis / par_reduce_axis, sum), inclusive sum
//! scans (gpu_scan::cpu::scan_axis / par_scan_axis) or `same` correlations with a 7-wide mask
//! (gpu_conv1d::cpu::apply_axis, zero boundary) over 2-D shapes of 2^LOG2 f32 values in C and
//! Fortran order, median of REPS runs: cpu_axis_probe LOG2 REPS [reduce|scan|conv7] [C1,C2,…]
//! (GB/s: the input's bytes over the time; scans and `same` results write as many again). With the column counts C1,C2,… the shapes are 2^LOG2/C × C
//! and C × 2^LOG2/C for each (lanes of C values along axis 1, then along axis 0); a fifth
//! argument keeps only the cases whose name holds it ("64x65536 F axis 1").
use gpu_core::Op;
use ndarray::{Array2, Axis, ShapeBuilder};
use std::time::Instant;
fn main() {
    let mut a = std::env::args().skip(1);
    let log2: u32 = a.next().map(|s| s.parse().unwrap()).unwrap_or(24);
    let reps: usize = a.next().map(|s| s.parse().unwrap()).unwrap_or(5);
    let what = a.next().unwrap_or_else(|| "reduce".into());
    let scan = what == "scan";
    let conv = what == "conv7";
    let n = 1usize << log2;
    let shapes: Vec<(usize, usize)> = match a.next() {
        Some(cols) => cols
            .split(',')
            .map(|c| c.parse::<usize>().unwrap())
            .flat_map(|c| [(n / c, c), (c, n / c)])
            .collect(),
        None => vec![
            (n / 4, 4usize),
            (n / 64, 64),
            (1 << (log2 / 2), 1 << (log2 - log2 / 2)),
            (64, n / 64),
        ],
    };
    let only = a.next().unwrap_or_default();
    println!("case\tform\tms\tGB/s");
    for &(rows, cols) in &shapes {
        for f in [false, true] {
            let x: Array2<f32> = if f {
                Array2::from_shape_fn((rows, cols).f(), |(i, j)| ((i * 7 + j) % 41) as f32 - 20.0)
            } else {
                Array2::from_shape_fn((rows, cols), |(i, j)| ((i * 7 + j) % 41) as f32 - 20.0)
            };
            for axis in 0..2 {
                let case = format!("{rows}x{cols} {} axis {axis}", if f { "F" } else { "C" });
                if !case.contains(&only) {
                    continue;
                }
                for par in [false, true] {
                    let mut t: Vec<f64> = (0..reps)
                        .map(|_| {
                            let t = Instant::now();
                            let (v, ax, k) = (x.view(), Axis(axis), gpu_scan::ScanKind::Inclusive);
                            if conv {
                                use gpu_conv1d::{Boundary, Mode, Operation};
                                let m = [0.25f32, -0.5, 1.0, 2.0, 1.0, -0.5, 0.25];
                                let r = gpu_conv1d::cpu::apply_axis(
                                    Operation::Correlation,
                                    v,
                                    ax,
                                    &m,
                                    Mode::Same,
                                    Boundary::Zero,
                                    par,
                                );
                                std::hint::black_box(r.unwrap());
                            } else if scan {
                                let r = if par {
                                    gpu_scan::cpu::par_scan_axis(v, ax, Op::Sum, k)
                                } else {
                                    gpu_scan::cpu::scan_axis(v, ax, Op::Sum, k)
                                };
                                std::hint::black_box(r.unwrap());
                            } else {
                                let r = if par {
                                    gpu_reduce::cpu::par_reduce_axis(v, ax, Op::Sum)
                                } else {
                                    gpu_reduce::cpu::reduce_axis(v, ax, Op::Sum)
                                };
                                std::hint::black_box(r.unwrap());
                            }
                            t.elapsed().as_secs_f64()
                        })
                        .collect();
                    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
                    let s = t[reps / 2];
                    println!(
                        "{case}\t{}\t{:.2}\t{:.2}",
                        if par { "par" } else { "serial" },
                        s * 1e3,
                        (n * 4) as f64 / s / 1e9
                    );
                }
            }
        }
    }
}
