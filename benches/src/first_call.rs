//! First-call latency: how long the first call of a primitive takes in a fresh process, where
//! the kernel it needs must be loaded (and, from PTX, compiled) first; and the kernel bytes each
//! crate embeds, so their growth stays visible.
//!
//! Each measurement is a child process (the calling binary run again with
//! [`CHILD_FLAG`]` <case>`): it opens the device, uploads a small input, then times the first
//! call and a second one. The parent runs every case under three conditions:
//! - `cubins, no JIT cache`: the default loader with `CUDA_CACHE_DISABLE=1` (a fresh machine);
//! - `PTX, no JIT cache`: `GPU_PRIMS_KERNEL_IMAGES=ptx` too (a GPU without shipped cubins);
//! - `PTX, warm JIT cache`: PTX again, with a private `CUDA_CACHE_PATH` warmed by one run.

use std::path::Path;
use std::process::Command;

use serde_json::json;

/// The flag that makes a binary run one case as a child.
pub const CHILD_FLAG: &str = "--first-call-child";

/// The cases: (name, what the first call is).
pub const CASES: &[(&str, &str)] = &[
    ("reduce", "sum of 1000 f32 (default algorithm)"),
    ("scan", "inclusive sum of 1000 i32, host to host (default)"),
    (
        "conv1d",
        "correlation of 1000 f32 with a 3-wide mask (default)",
    ),
    ("reduce-other", "argmax of 1000 i64, two-pass tree"),
    ("scan-other", "exclusive max of 1000 f64, Blelloch"),
    (
        "conv1d-other",
        "f64 correlation, 127-wide mask, constant-memory kernel",
    ),
    (
        "conv1d-half",
        "f16 correlation, 63-wide mask (tensor cores on 8.0+), then bf16, 7-wide",
    ),
    (
        "conv1d-fft",
        "f32 correlation of 20 000 values, 1023-wide mask (the FFT path and its tables)",
    ),
    (
        "reduce-axis",
        "column sums of a 1000 × 64 f32 ndarray (sum_axis, axis 0)",
    ),
    (
        "scan-axis",
        "running sums down the columns of a 1000 × 64 i32 ndarray (cumsum_axis)",
    ),
    (
        "scan-axis-staged",
        "running sums down the columns of a 4097 × 64 f32 ndarray, long spans staged in shared memory (compute 9.0+)",
    ),
    (
        "reduce-segments",
        "sums of 200 segments of lengths 0-9 over 1000 f32 (segmented_sum)",
    ),
    (
        "reduce-segments-device",
        "sums of the same segments over device values (a thread per segment)",
    ),
    (
        "scan-segments",
        "running sums within 200 segments of lengths 0-9 over 1000 i32 (segmented_scan)",
    ),
    (
        "preload",
        "every kernel of every crate (`preload`, in parallel)",
    ),
];

/// One child's figures.
#[derive(Debug, Clone)]
pub struct Measurement {
    /// Case name.
    pub case: String,
    /// Condition (see the module docs).
    pub condition: String,
    /// Device open and input upload, seconds.
    pub open_s: f64,
    /// First call, seconds.
    pub first_s: f64,
    /// Second call of the same, seconds.
    pub second_s: f64,
    /// Kernels loaded by the end, over every crate.
    pub kernels: usize,
    /// How they were loaded (`sm_90 cubin`, `PTX`).
    pub images: String,
}

/// Runs one case in this process and prints its line (the child side). Returns the exit code.
#[cfg(feature = "cuda")]
pub fn child(case: &str) -> i32 {
    match child_run(case) {
        Ok((open_s, first_s, second_s, kernels, images)) => {
            println!("FIRSTCALL\t{case}\t{open_s}\t{first_s}\t{second_s}\t{kernels}\t{images}");
            0
        }
        Err(e) => {
            eprintln!("first-call {case}: {e}");
            1
        }
    }
}

/// Without the `cuda` feature there is nothing to measure.
#[cfg(not(feature = "cuda"))]
pub fn child(case: &str) -> i32 {
    eprintln!("first-call {case}: built without the `cuda` feature");
    1
}

#[cfg(feature = "cuda")]
type ChildFigures = (f64, f64, f64, usize, String);

#[cfg(feature = "cuda")]
fn child_run(case: &str) -> gpu_core::Result<ChildFigures> {
    use gpu_conv1d::{correlate, Options, Strategy};
    use gpu_core::{Gpu, Op};
    use gpu_reduce::{Algorithm as ReduceAlgorithm, DeviceReduce, Reduce};
    use gpu_scan::{Algorithm as ScanAlgorithm, Scan, ScanOptions};
    use std::time::Instant;

    let t = Instant::now();
    let gpu = Gpu::default_device()?;
    let n = 1000;
    let f32s: Vec<f32> = (0..n).map(|i| (i % 17) as f32 * 0.5).collect();
    let f64s: Vec<f64> = (0..n).map(|i| (i % 13) as f64 - 6.0).collect();
    let i32s: Vec<i32> = (0..n as i32).collect();
    let i64s: Vec<i64> = (0..n as i64).map(|i| (i * 7919) % 1009).collect();
    let x32 = gpu.upload(&f32s)?;
    let x64 = gpu.upload(&f64s)?;
    let xi64 = gpu.upload(&i64s)?;
    let mut y64 = gpu.alloc::<f64>(n)?;
    let mask127: Vec<f64> = (0..127).map(|i| 1.0 / (1.0 + i as f64)).collect();
    // Small integers as f32: exact sums whatever the order.
    let cols32 = ndarray::Array2::from_shape_fn((1000, 64), |(r, c)| ((r + c) % 7) as f32);
    let colsi32 = ndarray::Array2::from_shape_fn((1000, 64), |(r, c)| ((r * 3 + c) % 11) as i32);
    // Segments of lengths 0..=9 (empty ones included), cut at n.
    let mut offsets: Vec<u64> = vec![0];
    while offsets.len() < 200 {
        let next = (*offsets.last().unwrap() + (offsets.len() as u64 * 7) % 10).min(n as u64);
        offsets.push(next);
    }
    offsets.push(n as u64);
    // Device values over checked segments take a thread per segment (asserted here, outside
    // the timed calls).
    let segments = if case == "reduce-segments-device" {
        let s = gpu_core::Segments::new(&gpu, &offsets, n)?;
        let plan = Reduce::new(&gpu).segments_plan::<f32>(&s, Op::Sum)?;
        assert!(
            matches!(plan.access, gpu_core::LaneAccess::ShortSegments { .. }),
            "{plan:?}"
        );
        Some(s)
    } else {
        None
    };
    // Staged spans at every length (the built-in rule starts at 2^24 values, or never), and
    // the plan asserted outside the timed calls.
    let staged32 = if case == "scan-axis-staged" {
        ndarray::Array2::from_shape_fn((4097, 64), |(r, c)| ((r * 5 + c) % 9) as f32)
    } else {
        ndarray::Array2::zeros((0, 64))
    };
    if case == "scan-axis-staged" {
        let mut t = gpu_core::Tuning::new();
        t.set("scan.column_staged_from", 1)?;
        gpu.set_tuning(t)?;
        if gpu.properties().compute_capability >= gpu_scan::plan::PREFETCH_MIN_COMPUTE {
            let plan = Scan::new(&gpu).axis_plan::<f32>(
                &[4097, 64],
                &[64, 1],
                ndarray::Axis(0),
                Op::Sum,
            )?;
            assert!(
                plan.access.long_span_staged_rows().unwrap_or(0) > 0,
                "{plan}"
            );
        }
    }
    gpu.synchronize()?;
    let open_s = t.elapsed().as_secs_f64();

    let mut call = || -> gpu_core::Result<()> {
        match case {
            "reduce" => assert_eq!(x32.sum()?, f32s.iter().sum::<f32>()),
            "scan" => {
                let s = gpu_scan::scan(&gpu, &i32s, Op::Sum, &ScanOptions::default())?;
                assert_eq!(s[n - 1], (n * (n - 1) / 2) as i32);
            }
            "conv1d" => {
                let y = correlate(&gpu, &f32s, &[0.25, 0.5, 0.25], Options::default())?;
                assert_eq!(y.len(), n);
            }
            "reduce-other" => {
                let r = Reduce::new(&gpu).algorithm(ReduceAlgorithm::TwoPass);
                assert!(r.argmax(&xi64)?.is_some());
            }
            "scan-other" => {
                let scan = Scan::new(&gpu)
                    .exclusive()
                    .algorithm(ScanAlgorithm::Blelloch);
                scan.scan_into(&x64, &mut y64, Op::Max)?;
                assert_eq!(y64.to_vec()?[1], f64s[0]);
            }
            "conv1d-other" => {
                let o = Options {
                    strategy: Strategy::ConstantMask,
                    ..Options::default()
                };
                assert_eq!(correlate(&gpu, &f64s, &mask127, o)?.len(), n);
            }
            "conv1d-fft" => {
                let m: Vec<f32> = (0..1023).map(|j| 1.0 / (1.0 + j as f32)).collect();
                let x: Vec<f32> = (0..20 * n).map(|i| (i % 17) as f32 - 8.0).collect();
                let c = gpu_conv1d::Conv1d::correlation(&gpu, &m, Options::default())?;
                assert!(matches!(c.path(x.len())?, gpu_conv1d::Path::Fft { .. }));
                assert_eq!(c.run(&x[..])?.len(), x.len());
            }
            "conv1d-half" => {
                let x: Vec<gpu_core::f16> =
                    f32s.iter().map(|&v| gpu_core::f16::from_f32(v)).collect();
                let m: Vec<gpu_core::f16> = (0..63)
                    .map(|j| gpu_core::f16::from_f32(1.0 / (1.0 + j as f32)))
                    .collect();
                assert_eq!(correlate(&gpu, &x, &m, Options::default())?.len(), n);
                let xb: Vec<gpu_core::bf16> =
                    f32s.iter().map(|&v| gpu_core::bf16::from_f32(v)).collect();
                let mb = [gpu_core::bf16::from_f32(0.25); 7];
                assert_eq!(correlate(&gpu, &xb, &mb, Options::default())?.len(), n);
            }
            "reduce-axis" => {
                let sums = Reduce::new(&gpu).sum_axis(&cols32, ndarray::Axis(0))?;
                assert_eq!(sums, cols32.sum_axis(ndarray::Axis(0)).into_dyn());
            }
            "scan-axis" => {
                let runs = Scan::new(&gpu).cumsum_axis(&colsi32, ndarray::Axis(0))?;
                assert_eq!(runs[[999, 63]], colsi32.column(63).sum());
            }
            "scan-axis-staged" => {
                let runs = Scan::new(&gpu).cumsum_axis(&staged32, ndarray::Axis(0))?;
                let last = runs.index_axis(ndarray::Axis(0), 4096);
                assert_eq!(last, staged32.sum_axis(ndarray::Axis(0)).into_dyn());
            }
            "reduce-segments" => {
                let sums = Reduce::new(&gpu).segmented_sum(&f32s, &offsets[..])?;
                assert_eq!(sums.len(), offsets.len() - 1);
                let last = &f32s[offsets[offsets.len() - 2] as usize..];
                assert_eq!(sums[sums.len() - 1], last.iter().sum::<f32>());
            }
            "reduce-segments-device" => {
                let segments = segments.as_ref().expect("built for this case");
                let sums = Reduce::new(&gpu).segmented_sum(&x32, segments)?;
                let last = &f32s[offsets[offsets.len() - 2] as usize..];
                assert_eq!(sums[sums.len() - 1], last.iter().sum::<f32>());
            }
            "scan-segments" => {
                let runs = Scan::new(&gpu).segmented_scan(&i32s, &offsets[..], Op::Sum)?;
                let last = &i32s[offsets[offsets.len() - 2] as usize..];
                assert_eq!(runs[n - 1], last.iter().sum::<i32>());
            }
            "preload" => {
                let n = gpu_core::KERNELS
                    .iter()
                    .map(|k| gpu.preload(k))
                    .sum::<gpu_core::Result<usize>>()?
                    + gpu_reduce::preload(&gpu)?
                    + gpu_scan::preload(&gpu)?
                    + gpu_conv1d::preload(&gpu)?
                    + gpu_sync::preload(&gpu)?;
                assert!(n > 0);
            }
            other => {
                return Err(gpu_core::Error::invalid(
                    "case",
                    format!("unknown first-call case `{other}`"),
                ))
            }
        }
        Ok(())
    };
    let t = Instant::now();
    call()?;
    let first_s = t.elapsed().as_secs_f64();
    let t = Instant::now();
    call()?;
    let second_s = t.elapsed().as_secs_f64();

    let mut kernels = 0;
    let mut images = std::collections::BTreeSet::new();
    for ptx in all_packs() {
        for name in gpu.loaded_kernels(ptx) {
            kernels += 1;
            images.insert(match gpu.kernel(ptx, &name)?.image() {
                gpu_core::KernelImage::Cubin { arch } => format!("sm_{arch} cubin"),
                gpu_core::KernelImage::Ptx => "PTX".to_string(),
            });
        }
    }
    let images = images.into_iter().collect::<Vec<_>>().join(" + ");
    Ok((open_s, first_s, second_s, kernels, images))
}

#[cfg(feature = "cuda")]
fn all_packs() -> Vec<&'static gpu_core::Ptx> {
    [
        gpu_core::KERNELS,
        gpu_reduce::KERNELS,
        gpu_scan::KERNELS,
        gpu_conv1d::KERNELS,
        gpu_sync::KERNELS,
    ]
    .concat()
}

/// The kernels one crate embeds.
#[derive(Debug, Clone)]
pub struct Embedded {
    /// Crate name.
    pub name: &'static str,
    /// Kernels (entry points).
    pub kernels: usize,
    /// PTX bytes.
    pub ptx: usize,
    /// Cubin bytes by architecture.
    pub cubins: Vec<(u32, usize)>,
}

/// The kernel bytes each crate embeds.
#[cfg(feature = "cuda")]
pub fn embedded() -> Vec<Embedded> {
    let crates: [(&str, &[&gpu_core::Ptx]); 5] = [
        ("gpu-core", gpu_core::KERNELS),
        ("gpu-reduce", gpu_reduce::KERNELS),
        ("gpu-scan", gpu_scan::KERNELS),
        ("gpu-conv1d", gpu_conv1d::KERNELS),
        ("gpu-sync", gpu_sync::KERNELS),
    ];
    crates
        .iter()
        .map(|(name, packs)| {
            let mut cubins: Vec<(u32, usize)> = Vec::new();
            let (mut kernels, mut ptx) = (0, 0);
            for p in packs.iter() {
                kernels += p.kernel_names().len();
                let b = p.embedded_bytes();
                ptx += b.ptx;
                for (arch, bytes) in b.cubins {
                    match cubins.iter_mut().find(|c| c.0 == arch) {
                        Some(c) => c.1 += bytes,
                        None => cubins.push((arch, bytes)),
                    }
                }
            }
            Embedded {
                name,
                kernels,
                ptx,
                cubins,
            }
        })
        .collect()
}

/// Without the `cuda` feature no kernels are embedded.
#[cfg(not(feature = "cuda"))]
pub fn embedded() -> Vec<Embedded> {
    Vec::new()
}

const CONDITIONS: &[&str] = &[
    "cubins, no JIT cache",
    "PTX, no JIT cache",
    "PTX, warm JIT cache",
];

/// Runs every case under every condition as children of `exe`; a failed child is reported in
/// the error list. `progress` sees the rows and errors so far after each child, so that a run
/// cut short (the PTX loads without a JIT cache take minutes) keeps what it measured.
pub fn measure(
    exe: &Path,
    cases: &[&str],
    mut progress: impl FnMut(&[Measurement], &[String]),
) -> (Vec<Measurement>, Vec<String>) {
    let cache = std::env::temp_dir().join(format!("gpu-prims-first-call-{}", std::process::id()));
    let (mut rows, mut errors) = (Vec::new(), Vec::new());
    for &condition in CONDITIONS {
        for &case in cases {
            let run = || {
                let mut cmd = Command::new(exe);
                cmd.args([CHILD_FLAG, case]);
                match condition {
                    "cubins, no JIT cache" => {
                        cmd.env("CUDA_CACHE_DISABLE", "1");
                        cmd.env_remove(gpu_kernel_images_var());
                    }
                    "PTX, no JIT cache" => {
                        cmd.env("CUDA_CACHE_DISABLE", "1");
                        cmd.env(gpu_kernel_images_var(), "ptx");
                    }
                    _ => {
                        cmd.env_remove("CUDA_CACHE_DISABLE");
                        cmd.env("CUDA_CACHE_PATH", &cache);
                        cmd.env(gpu_kernel_images_var(), "ptx");
                    }
                }
                cmd.output()
            };
            if condition == "PTX, warm JIT cache" {
                let _ = run(); // warms the private cache
            }
            match run() {
                Ok(out) => {
                    let stdout = String::from_utf8_lossy(&out.stdout);
                    match stdout.lines().find_map(parse_line) {
                        Some(mut m) if out.status.success() => {
                            m.condition = condition.to_string();
                            rows.push(m);
                        }
                        _ => errors.push(format!(
                            "{case} ({condition}): {}",
                            String::from_utf8_lossy(&out.stderr).trim()
                        )),
                    }
                }
                Err(e) => errors.push(format!("{case} ({condition}): cannot run {exe:?}: {e}")),
            }
            progress(&rows, &errors);
        }
    }
    let _ = std::fs::remove_dir_all(&cache);
    (rows, errors)
}

fn gpu_kernel_images_var() -> &'static str {
    // The same name as gpu_core::KERNEL_IMAGES_VAR, available without the `cuda` feature.
    "GPU_PRIMS_KERNEL_IMAGES"
}

fn parse_line(line: &str) -> Option<Measurement> {
    let f: Vec<&str> = line.split('\t').collect();
    if f.len() != 7 || f[0] != "FIRSTCALL" {
        return None;
    }
    Some(Measurement {
        case: f[1].to_string(),
        condition: String::new(),
        open_s: f[2].parse().ok()?,
        first_s: f[3].parse().ok()?,
        second_s: f[4].parse().ok()?,
        kernels: f[5].parse().ok()?,
        images: f[6].to_string(),
    })
}

/// The Markdown section: first-call table and embedded bytes.
pub fn markdown(device: &str, rows: &[Measurement], errors: &[String]) -> String {
    let mut s = format!(
        "## First call in a fresh process ({device})\n\n\
         Seconds; `open` is device open plus a small upload, `first` the first call (kernel \
         load included), `second` the same call again; `kernels` counts the kernels loaded \
         by then.\n\n\
         | case | first call of | condition | open | first | second | kernels | loaded as |\n\
         | --- | --- | --- | ---: | ---: | ---: | ---: | --- |\n"
    );
    for r in rows {
        let what = CASES.iter().find(|c| c.0 == r.case).map_or("", |c| c.1);
        s += &format!(
            "| {} | {} | {} | {:.3} | {:.4} | {:.4} | {} | {} |\n",
            r.case, what, r.condition, r.open_s, r.first_s, r.second_s, r.kernels, r.images
        );
    }
    for e in errors {
        s += &format!("\nFailed: {e}\n");
    }
    s += "\n## Embedded kernel bytes per crate\n\n| crate | kernels | PTX | cubins (by arch) | total |\n| --- | ---: | ---: | --- | ---: |\n";
    for Embedded {
        name,
        kernels,
        ptx,
        cubins,
    } in embedded()
    {
        let total = ptx + cubins.iter().map(|c| c.1).sum::<usize>();
        let per_arch: Vec<String> = cubins
            .iter()
            .map(|(a, b)| format!("sm_{a} {}", mib(*b)))
            .collect();
        s += &format!(
            "| {name} | {kernels} | {} | {} | {} |\n",
            mib(ptx),
            per_arch.join(", "),
            mib(total)
        );
    }
    s
}

fn mib(bytes: usize) -> String {
    format!("{:.2} MiB", bytes as f64 / (1 << 20) as f64)
}

/// The JSON form of the measurements and sizes.
pub fn json(device: &str, rows: &[Measurement], errors: &[String]) -> serde_json::Value {
    json!({
        "device": device,
        "first_call": rows.iter().map(|r| json!({
            "case": r.case, "condition": r.condition, "open_s": r.open_s,
            "first_s": r.first_s, "second_s": r.second_s, "kernels": r.kernels,
            "images": r.images,
        })).collect::<Vec<_>>(),
        "errors": errors,
        "embedded": embedded().iter().map(|e| json!({
            "crate": e.name, "kernels": e.kernels, "ptx_bytes": e.ptx,
            "cubin_bytes": e.cubins.iter().map(|(a, b)| json!({"arch": a, "bytes": b}))
                .collect::<Vec<_>>(),
        })).collect::<Vec<_>>(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_lines_parse() {
        let m = parse_line("FIRSTCALL\treduce\t0.5\t0.01\t0.0001\t1\tsm_90 cubin").unwrap();
        assert_eq!((m.case.as_str(), m.kernels), ("reduce", 1));
        assert_eq!(m.images, "sm_90 cubin");
        assert!(parse_line("something else").is_none());
        let md = markdown("test", &[m], &["x: y".into()]);
        assert!(md.contains("| reduce | sum of 1000 f32"));
        assert!(md.contains("Failed: x: y"));
    }
}
