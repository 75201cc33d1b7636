//! Command-line options of the report.

use std::path::PathBuf;

/// Element types the report can run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DType {
    /// `i32`
    I32,
    /// `u32`
    U32,
    /// `i64`
    I64,
    /// `u64`
    U64,
    /// `f32`
    F32,
    /// `f64`
    F64,
    /// `f16` (IEEE half)
    F16,
    /// `bf16` (bfloat16)
    BF16,
}

impl DType {
    /// Every type.
    pub const ALL: [DType; 8] = [
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
        DType::F32,
        DType::F64,
        DType::F16,
        DType::BF16,
    ];

    /// `i32`, `f32`, ...
    pub const fn name(self) -> &'static str {
        match self {
            DType::I32 => "i32",
            DType::U32 => "u32",
            DType::I64 => "i64",
            DType::U64 => "u64",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::F16 => "f16",
            DType::BF16 => "bf16",
        }
    }

    /// Bytes per element.
    pub const fn size(self) -> usize {
        match self {
            DType::I32 | DType::U32 | DType::F32 => 4,
            DType::I64 | DType::U64 | DType::F64 => 8,
            DType::F16 | DType::BF16 => 2,
        }
    }

    /// Whether it is a float type.
    pub const fn is_float(self) -> bool {
        matches!(self, DType::F32 | DType::F64 | DType::F16 | DType::BF16)
    }

    /// Whether it is a 16-bit float (so far reduced only: gpu-scan and gpu-conv1d come later).
    pub const fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }

    /// Parses `i32`, `f32`, ... (also `int32`, `float32`).
    pub fn parse(s: &str) -> Option<DType> {
        let s = s.trim().to_ascii_lowercase();
        let s = s
            .replace("uint", "u")
            .replace("int", "i")
            .replace("float", "f");
        DType::ALL.into_iter().find(|d| d.name() == s)
    }
}

/// Calls `$body` with `$T` bound to the Rust type of a [`DType`].
#[macro_export]
macro_rules! with_dtype {
    ($d:expr, $T:ident => $body:expr) => {
        match $d {
            $crate::report::DType::I32 => {
                type $T = i32;
                $body
            }
            $crate::report::DType::U32 => {
                type $T = u32;
                $body
            }
            $crate::report::DType::I64 => {
                type $T = i64;
                $body
            }
            $crate::report::DType::U64 => {
                type $T = u64;
                $body
            }
            $crate::report::DType::F32 => {
                type $T = f32;
                $body
            }
            $crate::report::DType::F64 => {
                type $T = f64;
                $body
            }
            $crate::report::DType::F16 => {
                type $T = gpu_core::f16;
                $body
            }
            $crate::report::DType::BF16 => {
                type $T = gpu_core::bf16;
                $body
            }
        }
    };
}

/// The report's options.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    /// Element counts.
    pub sizes: Vec<usize>,
    /// Element types (conv1d runs the float ones only).
    pub types: Vec<DType>,
    /// Fewer repetitions and smaller defaults.
    pub quick: bool,
    /// Output directory.
    pub out: PathBuf,
    /// peers.json from scripts/peers.py.
    pub peers: Option<PathBuf>,
    /// Parts to run (`core`, `reduce`, `scan`, `conv1d`, `sync`, `first-call`); empty: all.
    pub only: Vec<String>,
    /// conv1d mask widths.
    pub widths: Vec<usize>,
    /// Element count of the scan block-size sweep.
    pub sweep_n: usize,
    /// Block sizes of the sweep.
    pub sweep_blocks: Vec<u32>,
    /// Timed GPU samples per case.
    pub gpu_reps: usize,
    /// Untimed GPU runs first.
    pub gpu_warmup: usize,
    /// Timed CPU runs per baseline (1 above `cpu_once_from`).
    pub cpu_reps: usize,
    /// Element count from which CPU baselines are timed once.
    pub cpu_once_from: usize,
    /// Largest `n·w` for which the serial convolution runs (slower ones use rayon as reference).
    pub serial_conv_limit: usize,
    /// Items of the sync demonstration.
    pub sync_items: usize,
    /// Per-block setup costs of the sync demonstration (LCG steps per table word; 0: none),
    /// one group each.
    pub sync_setups: Vec<u32>,
    /// Data seed.
    pub seed: u64,
    /// No progress lines.
    pub quiet: bool,
    /// Skip the rows whose data start or end in host memory (the host link: host-to-host
    /// pipelines, host arrays along axes, reductions from host memory), so a report of the
    /// device paths alone fits a short GPU session.
    pub device_only: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            sizes: vec![1 << 20, 1 << 24, 1 << 28],
            types: vec![DType::I32, DType::F32],
            quick: false,
            out: PathBuf::from("report-out"),
            peers: None,
            only: Vec::new(),
            widths: vec![3, 7, 31, 127],
            sweep_n: 123_123_123,
            sweep_blocks: vec![32, 64, 128, 256, 512, 1024],
            gpu_reps: 15,
            gpu_warmup: 3,
            cpu_reps: 3,
            cpu_once_from: 1 << 26,
            serial_conv_limit: 1 << 31,
            sync_items: 1 << 16,
            sync_setups: vec![0, 64, 512],
            seed: 2024,
            quiet: false,
            device_only: false,
        }
    }
}

/// `--help` text.
pub const USAGE: &str = "\
report: run every gpu-prims primitive and algorithm, check, time, compare, plot

USAGE: report [OPTIONS]   (cargo run --release -p gpu-prims-benches [--features cuda] --bin report -- ...)

  --sizes LIST      log2 sizes (or element counts > 40), comma-separated   [20,24,28]
  --types LIST      element types: i32,u32,i64,u64,f32,f64,f16,bf16         [i32,f32]
  --only LIST       core,reduce,scan,conv1d,sync,first-call                [all]
  --widths LIST     conv1d mask widths                                      [3,7,31,127]
  --sweep-n N       scan block-size sweep size (log2 if <= 40)              [123123123]
  --blocks LIST     block sizes of the sweep                                [32,...,1024]
  --sync-items N    items of the uneven-workload demo (log2 if <= 40)       [2^16]
  --sync-setup LIST per-block setup of the demo, LCG steps per table word    [0,64,512]
  --reps N          timed GPU samples per case (median reported)            [15]
  --cpu-reps N      timed CPU runs per baseline (1 from 2^26 elements)       [3]
  --quick           sizes 16,20; sweep at 2^20; fewer repetitions
  --out DIR         output directory (report.md, report.json, *.svg)       [report-out]
  --peers FILE      merge peers.json from scripts/peers.py
  --seed N          data seed                                               [2024]
  --quiet           no progress lines on stderr
  --device-only     skip the host-link rows (host to host, host arrays, from host)
  -h, --help        this text

Exit status: 0 when every checked result is correct, 1 when any is wrong or failed, 2 on bad usage.
";

fn parse_list<T>(v: &str, f: impl Fn(&str) -> Option<T>) -> Result<Vec<T>, String> {
    v.split(',')
        .filter(|s| !s.trim().is_empty())
        .map(|s| f(s.trim()).ok_or_else(|| format!("bad value `{s}`")))
        .collect()
}

fn parse_count(s: &str) -> Option<usize> {
    let s = s.trim().replace('_', "");
    let s = s.strip_prefix("2^").map(|e| e.to_string()).unwrap_or(s);
    let v: usize = s.parse().ok()?;
    if v <= 40 {
        1usize.checked_shl(v as u32)
    } else {
        Some(v)
    }
}

impl Config {
    /// Parses the arguments (without the program name).
    pub fn from_args<I: IntoIterator<Item = String>>(args: I) -> Result<Config, String> {
        let mut c = Config::default();
        let mut sizes_given = false;
        let mut sweep_given = false;
        let mut reps_given = false;
        let mut it = args.into_iter();
        while let Some(a) = it.next() {
            let (flag, inline) = match a.split_once('=') {
                Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
                _ => (a.clone(), None),
            };
            let mut value = || -> Result<String, String> {
                inline
                    .clone()
                    .or_else(|| it.next())
                    .ok_or_else(|| format!("{flag} needs a value"))
            };
            match flag.as_str() {
                "-h" | "--help" => return Err(String::new()),
                "--quick" => c.quick = true,
                "--quiet" => c.quiet = true,
                "--device-only" => c.device_only = true,
                "--sizes" => {
                    c.sizes = parse_list(&value()?, parse_count)?;
                    sizes_given = true;
                }
                "--types" => c.types = parse_list(&value()?, DType::parse)?,
                "--only" => {
                    c.only = parse_list(&value()?, |s| Some(s.to_ascii_lowercase()))?;
                    for o in &c.only {
                        if !["core", "reduce", "scan", "conv1d", "sync", "first-call"]
                            .contains(&o.as_str())
                        {
                            return Err(format!("unknown primitive `{o}`"));
                        }
                    }
                }
                "--widths" => c.widths = parse_list(&value()?, |s| s.parse().ok())?,
                "--sync-setup" => {
                    c.sync_setups = parse_list(&value()?, |s| s.parse().ok())?;
                }
                "--sweep-n" => {
                    c.sweep_n = parse_count(&value()?).ok_or("bad --sweep-n")?;
                    sweep_given = true;
                }
                "--blocks" => c.sweep_blocks = parse_list(&value()?, |s| s.parse().ok())?,
                "--sync-items" => {
                    c.sync_items = parse_count(&value()?).ok_or("bad --sync-items")?
                }
                "--reps" => {
                    c.gpu_reps = value()?.parse().map_err(|_| "bad --reps")?;
                    reps_given = true;
                }
                "--cpu-reps" => c.cpu_reps = value()?.parse().map_err(|_| "bad --cpu-reps")?,
                "--out" => c.out = PathBuf::from(value()?),
                "--peers" => c.peers = Some(PathBuf::from(value()?)),
                "--seed" => c.seed = value()?.parse().map_err(|_| "bad --seed")?,
                other => return Err(format!("unknown option `{other}`")),
            }
        }
        if c.quick {
            if !sizes_given {
                c.sizes = vec![1 << 16, 1 << 20];
            }
            if !sweep_given {
                c.sweep_n = 1 << 20;
            }
            if !reps_given {
                c.gpu_reps = 7;
            }
            c.gpu_warmup = 2;
            c.cpu_reps = c.cpu_reps.min(2);
        }
        if c.sizes.is_empty() || c.types.is_empty() {
            return Err("--sizes and --types need at least one value".into());
        }
        if c.sweep_blocks.iter().any(|b| !b.is_power_of_two()) {
            return Err("--blocks must be powers of two".into());
        }
        Ok(c)
    }

    /// The GPU timing of every case.
    #[cfg(feature = "cuda")]
    pub fn gpu_timing(&self) -> crate::gpu::GpuTiming {
        crate::gpu::GpuTiming {
            warmup: self.gpu_warmup,
            reps: self.gpu_reps.max(1),
            ..Default::default()
        }
    }

    /// Timed CPU runs for `n` elements.
    pub fn cpu_reps_for(&self, n: usize) -> usize {
        if n >= self.cpu_once_from {
            1
        } else {
            self.cpu_reps.max(1)
        }
    }

    /// The float types among `types`.
    pub fn float_types(&self) -> Vec<DType> {
        self.types
            .iter()
            .copied()
            .filter(|d| d.is_float() && !d.is_half())
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses() {
        let c = Config::from_args(args("--sizes 20,24,28 --types i32,float32 --out x")).unwrap();
        assert_eq!(c.sizes, vec![1 << 20, 1 << 24, 1 << 28]);
        assert_eq!(c.types, vec![DType::I32, DType::F32]);
        assert_eq!(c.out, PathBuf::from("x"));
        let q = Config::from_args(args("--quick --peers=p.json --sizes 123123123")).unwrap();
        assert_eq!(q.sizes, vec![123_123_123]);
        assert_eq!(q.sweep_n, 1 << 20);
        assert_eq!(q.peers, Some(PathBuf::from("p.json")));
        assert!(!q.device_only);
        assert!(
            Config::from_args(args("--device-only"))
                .unwrap()
                .device_only
        );
        assert!(Config::from_args(args("--bogus")).is_err());
        assert!(Config::from_args(args("--only reduce,nope")).is_err());
        assert!(Config::from_args(args("--sizes")).is_err());
        assert_eq!(DType::parse("uint32"), Some(DType::U32));
    }
}
