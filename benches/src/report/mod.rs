//! The report: every primitive and algorithm on generated data, checked against the CPU
//! reference, timed with CUDA events, quoted against a device-to-device copy of the same bytes
//! and against rayon, written as a table, Markdown, JSON and SVG plots.
//!
//! Each primitive has a module ([`core`], [`reduce`], [`scan`], [`conv1d`], [`sync`]) that
//! turns the [`Config`] into [`Group`]s: a group generates the data of one (type, size), builds
//! its [`Case`]s (the GPU algorithms, the CPU baselines) and hands them to [`Env::run_cases`],
//! which times, checks and turns each into a [`Row`].

pub mod check;
pub mod config;
pub mod conv1d;
pub mod core;
#[cfg(feature = "cuda")]
pub mod host_io;
pub mod output;
pub mod peers;
pub mod plots;
pub mod reduce;
pub mod scan;
pub mod sync;

use std::io::Write as _;
use std::time::Instant;

pub use check::Verdict;
pub use config::{Config, DType};

use crate::stats::{time_cpu, Stats};
use crate::Stream;

/// Enqueues one run of a GPU case on the stream (it may also wait for it).
pub type GpuRun<'a> = Box<dyn FnMut(&Stream) -> gpu_core::Result<()> + 'a>;
/// One run of a CPU case.
pub type CpuRun<'a> = Box<dyn FnMut() + 'a>;
/// Compares the output of the last run with the reference.
pub type Check<'a> = Box<dyn FnMut() -> Verdict + 'a>;

/// What a case runs.
pub enum Work<'a> {
    /// GPU work, timed with CUDA events.
    Gpu(GpuRun<'a>),
    /// CPU work, timed with the wall clock.
    Cpu(CpuRun<'a>),
    /// Nothing: the case is listed with the reason.
    Absent(String),
}

/// One line of the report before it runs.
pub struct Case<'a> {
    /// `core`, `reduce`, `scan`, `conv1d`, `sync`.
    pub primitive: &'static str,
    /// The algorithm or strategy (`auto`, `blelloch`, ..., `rayon`, `serial`).
    pub algorithm: String,
    /// Operator, form and timing mode (`sum`, `inclusive sum`, `inclusive sum, with copies`).
    pub variant: String,
    /// Element type name (`i32`, `f32`, ...).
    pub dtype: &'static str,
    /// Number of elements (items for `sync`).
    pub n: usize,
    /// A numeric parameter: `("w", mask width)`, `("block", threads per block)`.
    pub param: Option<(&'static str, u64)>,
    /// Bytes the operation moves by the report's model (0: no bandwidth figure).
    pub bytes_moved: u64,
    /// Bytes of the array whose device-to-device copy is this case's reference (`n·size`); the
    /// copy reads and writes them. `None`: no copy fraction.
    pub copy_bytes: Option<usize>,
    /// What runs.
    pub work: Work<'a>,
    /// The correctness check of the last run, `None` when there is nothing to check.
    pub check: Option<Check<'a>>,
    /// Timed repetitions instead of the configured number (slow cases).
    pub reps: Option<usize>,
}

impl<'a> Case<'a> {
    /// A case with no work yet (`Absent("")`), no check, no copy reference.
    pub fn new(
        primitive: &'static str,
        algorithm: impl Into<String>,
        variant: impl Into<String>,
        dtype: &'static str,
        n: usize,
    ) -> Self {
        Case {
            primitive,
            algorithm: algorithm.into(),
            variant: variant.into(),
            dtype,
            n,
            param: None,
            bytes_moved: 0,
            copy_bytes: None,
            work: Work::Absent(String::new()),
            check: None,
            reps: None,
        }
    }

    /// Sets the bytes moved and the copy reference's array bytes.
    pub fn bytes(mut self, moved: u64, copy_array_bytes: Option<usize>) -> Self {
        self.bytes_moved = moved;
        self.copy_bytes = copy_array_bytes;
        self
    }

    /// Sets the numeric parameter.
    pub fn param(mut self, name: &'static str, value: u64) -> Self {
        self.param = Some((name, value));
        self
    }

    /// GPU work.
    pub fn gpu(mut self, run: impl FnMut(&Stream) -> gpu_core::Result<()> + 'a) -> Self {
        self.work = Work::Gpu(Box::new(run));
        self
    }

    /// CPU work.
    pub fn cpu(mut self, run: impl FnMut() + 'a) -> Self {
        self.work = Work::Cpu(Box::new(run));
        self
    }

    /// Listed, not run.
    pub fn absent(mut self, why: impl Into<String>) -> Self {
        self.work = Work::Absent(why.into());
        self
    }

    /// The check of the last run.
    pub fn check(mut self, check: impl FnMut() -> Verdict + 'a) -> Self {
        self.check = Some(Box::new(check));
        self
    }

    /// Timed repetitions for this case.
    pub fn reps(mut self, reps: usize) -> Self {
        self.reps = Some(reps);
        self
    }

    /// The progress label: `scan blelloch f32 2^24 (block=256)`.
    pub fn label(&self) -> String {
        let mut s = format!(
            "{} {} {} {} {}",
            self.primitive,
            self.algorithm,
            self.variant,
            self.dtype,
            crate::size_label(self.n)
        );
        if let Some((k, v)) = self.param {
            s.push_str(&format!(" {k}={v}"));
        }
        s
    }
}

/// A peer library's figure for the same operation (from `peers.json`).
#[derive(Debug, Clone, PartialEq)]
pub struct PeerCell {
    /// `torch` or `cupy`.
    pub library: String,
    /// Median milliseconds, `None` when the peer lacks the operation.
    pub ms: Option<f64>,
    /// The peer's fraction of its own copy bandwidth (measured in its run).
    pub copy_fraction: Option<f64>,
    /// Why absent, when absent.
    pub note: String,
}

/// One line of the report after it ran.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// See [`Case::primitive`].
    pub primitive: String,
    /// See [`Case::algorithm`].
    pub algorithm: String,
    /// See [`Case::variant`].
    pub variant: String,
    /// See [`Case::dtype`].
    pub dtype: String,
    /// See [`Case::n`].
    pub n: usize,
    /// See [`Case::param`].
    pub param: Option<(String, u64)>,
    /// `gpu`, `cpu` or `absent`.
    pub kind: String,
    /// Bytes moved by the model.
    pub bytes: u64,
    /// Timing summary.
    pub time: Option<Stats>,
    /// The device-to-device copy of the same array (same run).
    pub copy: Option<Stats>,
    /// Bytes the copy reads and writes (`2·n·size`).
    pub copy_bytes: u64,
    /// Median time of the rayon baseline of the same operation (same run).
    pub rayon_ms: Option<f64>,
    /// `Some(true)` checked and right, `Some(false)` wrong or failed, `None` not checked.
    pub correct: Option<bool>,
    /// Why absent, what went wrong, or what the check said.
    pub note: String,
    /// Peer libraries' figures for the same operation.
    pub peers: Vec<PeerCell>,
}

impl Row {
    /// Median milliseconds.
    pub fn ms(&self) -> Option<f64> {
        self.time.map(|t| t.median_ms)
    }

    /// GB/s by the model's bytes.
    pub fn gbps(&self) -> Option<f64> {
        match self.time {
            Some(t) if self.bytes > 0 => Some(t.gbps(self.bytes)),
            _ => None,
        }
    }

    /// The copy's GB/s (bytes read + written).
    pub fn copy_gbps(&self) -> Option<f64> {
        match self.copy {
            Some(c) if self.copy_bytes > 0 => Some(c.gbps(self.copy_bytes)),
            _ => None,
        }
    }

    /// GB/s as a fraction of the copy's.
    pub fn copy_fraction(&self) -> Option<f64> {
        Some(self.gbps()? / self.copy_gbps()?)
    }

    /// rayon time over this row's time.
    pub fn speedup(&self) -> Option<f64> {
        Some(self.rayon_ms? / self.ms()?)
    }

    /// The key rayon rows are matched on.
    fn op_key(&self) -> (String, String, String, usize, Option<(String, u64)>) {
        // Timing modes ("…, with copies") compare against the same rayon operation.
        let variant = self
            .variant
            .split(',')
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        (
            self.primitive.clone(),
            variant,
            self.dtype.clone(),
            self.n,
            self.param.clone(),
        )
    }
}

/// Progress lines on stderr: `[12/80] 3.1s scan blelloch inclusive sum f32 2^24`.
pub struct Progress {
    /// Cases planned.
    pub total: usize,
    /// Cases started.
    pub done: usize,
    start: Instant,
    /// Print nothing.
    pub quiet: bool,
}

impl Progress {
    /// A progress counter for `total` cases.
    pub fn new(total: usize, quiet: bool) -> Self {
        Progress {
            total,
            done: 0,
            start: Instant::now(),
            quiet,
        }
    }

    /// Announces the next case.
    pub fn step(&mut self, label: &str) {
        self.done += 1;
        self.total = self.total.max(self.done);
        if !self.quiet {
            let _ = writeln!(
                std::io::stderr().lock(),
                "[{}/{}] {:>6.1}s {label}",
                self.done,
                self.total,
                self.start.elapsed().as_secs_f64()
            );
        }
    }

    /// A free-form line (data generation, uploads).
    pub fn note(&self, text: &str) {
        if !self.quiet {
            let _ = writeln!(
                std::io::stderr().lock(),
                "        {:>6.1}s {text}",
                self.start.elapsed().as_secs_f64()
            );
        }
    }
}

/// Runs a planned group: generates its data, builds its cases, runs them.
pub type GroupRun = Box<dyn FnOnce(&mut Env) -> Vec<Row>>;

/// A planned unit of the report: one (primitive, type, size) with its cases.
pub struct Group {
    /// For progress messages.
    pub label: String,
    /// How many cases it will run (for the progress total).
    pub cases: usize,
    /// Generates the data, builds the cases and runs them.
    pub run: GroupRun,
}

/// The state of one report run.
pub struct Env {
    /// The options.
    pub cfg: Config,
    /// Why the GPU parts are absent (no `cuda` feature, no device), or `None`.
    pub gpu_absent: Option<String>,
    /// The device.
    #[cfg(feature = "cuda")]
    pub gpu: Option<gpu_core::Gpu>,
    /// Copy references measured so far.
    #[cfg(feature = "cuda")]
    pub copies: crate::gpu::CopyReference,
    /// Device description for the header.
    pub device: String,
    /// Notes for the report's "absent" section (missing APIs, skipped sizes).
    pub notes: Vec<String>,
    /// Progress on stderr.
    pub progress: Progress,
}

impl Env {
    /// The generated input of one group (`n` values of `T` from the run's seed), announced on
    /// the progress line since large sizes take a moment.
    pub fn generate<T: gpu_core::Element>(&mut self, d: DType, n: usize) -> Vec<T> {
        self.progress.note(&format!(
            "generating {} × {}",
            crate::size_label(n),
            d.name()
        ));
        crate::data::values::<T>(n, self.cfg.seed)
    }

    /// Opens the device (if built with `cuda` and one is present).
    pub fn new(cfg: Config) -> Self {
        let quiet = cfg.quiet;
        #[cfg(feature = "cuda")]
        let (gpu, gpu_absent, device) = match gpu_core::Gpu::default_device() {
            Ok(g) => {
                let p = g.properties();
                let d = format!(
                    "{} (sm_{}{}, {} SMs, {:.0} GiB, {} MiB L2)",
                    p.name,
                    p.compute_capability.0,
                    p.compute_capability.1,
                    p.sm_count,
                    p.total_memory as f64 / (1u64 << 30) as f64,
                    p.l2_cache >> 20
                );
                (Some(g), None, d)
            }
            Err(e) => (
                None,
                Some(format!("no usable GPU: {e}")),
                "none".to_string(),
            ),
        };
        #[cfg(not(feature = "cuda"))]
        let (gpu_absent, device) = (crate::gpu_absent_reason(), "none".to_string());
        Env {
            cfg,
            gpu_absent,
            #[cfg(feature = "cuda")]
            gpu,
            #[cfg(feature = "cuda")]
            copies: crate::gpu::CopyReference::new(),
            device,
            notes: Vec::new(),
            progress: Progress::new(0, quiet),
        }
    }

    /// Whether GPU cases can run.
    pub fn has_gpu(&self) -> bool {
        self.gpu_absent.is_none()
    }

    /// Adds a note once.
    pub fn note(&mut self, text: impl Into<String>) {
        let t = text.into();
        if !self.notes.contains(&t) {
            self.notes.push(t);
        }
    }

    /// Whether a device allocation of `bytes` more is likely to fit (always true without a GPU
    /// or when the driver cannot say).
    pub fn fits(&self, bytes: usize) -> bool {
        #[cfg(feature = "cuda")]
        if let Some(g) = &self.gpu {
            if let Ok((free, _)) = g.memory_info() {
                return bytes.saturating_add(256 << 20) <= free;
            }
        }
        let _ = bytes;
        true
    }

    /// Runs, times and checks the cases in order. A case that panics becomes a failed row (the
    /// report goes on with the next one).
    pub fn run_cases(&mut self, cases: Vec<Case<'_>>) -> Vec<Row> {
        cases
            .into_iter()
            .map(|c| {
                let blank = Row {
                    primitive: c.primitive.to_string(),
                    algorithm: c.algorithm.clone(),
                    variant: c.variant.clone(),
                    dtype: c.dtype.to_string(),
                    n: c.n,
                    param: c.param.map(|(k, v)| (k.to_string(), v)),
                    kind: match c.work {
                        Work::Gpu(_) => "gpu",
                        Work::Cpu(_) => "cpu",
                        Work::Absent(_) => "absent",
                    }
                    .to_string(),
                    bytes: c.bytes_moved,
                    time: None,
                    copy: None,
                    copy_bytes: c.copy_bytes.map_or(0, |b| 2 * b as u64),
                    rayon_ms: None,
                    correct: None,
                    note: String::new(),
                    peers: Vec::new(),
                };
                let run = std::panic::AssertUnwindSafe(|| self.run_case(c, blank.clone()));
                std::panic::catch_unwind(run).unwrap_or_else(|p| {
                    let msg = p
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| p.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "non-string panic".into());
                    Row {
                        correct: Some(false),
                        note: format!("panicked: {msg}"),
                        ..blank
                    }
                })
            })
            .collect()
    }

    fn run_case(&mut self, mut case: Case<'_>, mut row: Row) -> Row {
        self.progress.step(&case.label());
        let work = std::mem::replace(&mut case.work, Work::Absent(String::new()));
        match work {
            Work::Absent(why) => {
                row.note = why;
                return row;
            }
            Work::Cpu(mut run) => {
                let reps = case.reps.unwrap_or(self.cfg.cpu_reps);
                let warmup = usize::from(reps > 1);
                let (stats, ()) = time_cpu(warmup, reps, &mut run);
                row.time = Some(stats);
            }
            Work::Gpu(run) => {
                if let Err(e) = self.time_gpu_case(&mut row, &case, run) {
                    let (correct, note) = classify(&e);
                    row.correct = correct;
                    row.note = note;
                    return row;
                }
            }
        }
        if let Some(check) = case.check.as_mut() {
            match check() {
                Verdict::Correct => row.correct = Some(true),
                Verdict::Wrong(why) => {
                    row.correct = Some(false);
                    row.note = why;
                }
                Verdict::Unchecked(why) => row.note = why,
            }
        }
        row
    }

    #[cfg(feature = "cuda")]
    fn time_gpu_case(
        &mut self,
        row: &mut Row,
        case: &Case<'_>,
        mut run: GpuRun<'_>,
    ) -> gpu_core::Result<()> {
        let gpu = self
            .gpu
            .clone()
            .ok_or_else(|| gpu_core::Error::NoDevice("no GPU".into()))?;
        let mut timing = self.cfg.gpu_timing();
        if let Some(r) = case.reps {
            timing.reps = r;
        }
        row.time = Some(crate::gpu::time_gpu(&gpu, gpu.stream(), &timing, &mut run)?);
        if let Some(bytes) = case.copy_bytes {
            let copy_timing = self.cfg.gpu_timing();
            row.copy = Some(self.copies.measure(&gpu, bytes, &copy_timing)?);
        }
        Ok(())
    }

    #[cfg(not(feature = "cuda"))]
    fn time_gpu_case(
        &mut self,
        _row: &mut Row,
        _case: &Case<'_>,
        _run: GpuRun<'_>,
    ) -> gpu_core::Result<()> {
        Err(gpu_core::Error::NoDevice(
            "built without the `cuda` feature".into(),
        ))
    }
}

/// Whether an error means a wrong result (`Some(false)`) or an absent figure (`None`), and the
/// note to show.
pub fn classify(e: &gpu_core::Error) -> (Option<bool>, String) {
    match e {
        gpu_core::Error::InvalidArgument { .. } => (None, format!("not supported: {e}")),
        gpu_core::Error::OutOfMemory { .. } => (None, format!("skipped: {e}")),
        gpu_core::Error::NoDevice(_) => (None, format!("absent: {e}")),
        _ => (Some(false), format!("error: {e}")),
    }
}

/// Fills each row's rayon time from the rayon row of the same operation (same primitive,
/// variant without its timing mode, type, size and parameter; a parameterless rayon row serves
/// the block-size sweep).
pub fn attach_rayon(rows: &mut [Row]) {
    use std::collections::HashMap;
    let mut rayon = HashMap::new();
    for r in rows.iter().filter(|r| r.algorithm == "rayon") {
        if let Some(ms) = r.ms() {
            rayon.insert(r.op_key(), ms);
        }
    }
    for r in rows.iter_mut() {
        if r.algorithm == "rayon" {
            continue;
        }
        let key = r.op_key();
        let found = rayon.get(&key).copied().or_else(|| {
            let mut k = key.clone();
            k.4 = None;
            rayon.get(&k).copied()
        });
        r.rayon_ms = found;
    }
}

/// Every group of the report for `cfg`, in order: the copy reference first, then each primitive.
pub fn plan(cfg: &Config, gpu: bool) -> (Vec<Group>, Vec<String>) {
    let mut groups = Vec::new();
    let mut notes = Vec::new();
    let wanted = |p: &str| cfg.only.is_empty() || cfg.only.iter().any(|o| o == p);
    if wanted("core") {
        groups.extend(core::groups(cfg, gpu, &mut notes));
    }
    if wanted("reduce") {
        groups.extend(reduce::groups(cfg, gpu, &mut notes));
    }
    if wanted("scan") {
        groups.extend(scan::groups(cfg, gpu, &mut notes));
    }
    if wanted("conv1d") {
        groups.extend(conv1d::groups(cfg, gpu, &mut notes));
    }
    if wanted("sync") {
        groups.extend(sync::groups(cfg, gpu, &mut notes));
    }
    (groups, notes)
}

/// Runs the whole report: plans, runs every group, attaches rayon and peers, writes the files.
/// Returns the rows and whether every checked result was correct.
pub fn run(cfg: Config) -> std::io::Result<(Vec<Row>, bool)> {
    let mut env = Env::new(cfg);
    if let Some(why) = env.gpu_absent.clone() {
        env.note(format!(
            "GPU rows are absent: {why}; only the CPU baselines ran"
        ));
    }
    let (groups, notes) = plan(&env.cfg, env.has_gpu());
    for n in notes {
        env.note(n);
    }
    env.progress.total = groups.iter().map(|g| g.cases).sum();
    let mut rows = Vec::new();
    for g in groups {
        env.progress.note(&g.label);
        let mut r = (g.run)(&mut env);
        rows.append(&mut r);
    }
    attach_rayon(&mut rows);
    let peers = match &env.cfg.peers {
        Some(path) => match peers::load(path) {
            Ok(p) => {
                peers::attach(&mut rows, &p.results);
                Some(p)
            }
            Err(e) => {
                env.note(format!("peers file {}: {e}", path.display()));
                None
            }
        },
        None => None,
    };
    let mut all_ok = rows.iter().all(|r| r.correct != Some(false));
    output::write_all(&env, &rows, peers.as_ref())?;
    let wanted = env.cfg.only.is_empty() || env.cfg.only.iter().any(|o| o == "first-call");
    if wanted && env.has_gpu() {
        all_ok &= first_call_section(&env.cfg)?;
    }
    Ok((rows, all_ok))
}

/// Runs the first-call measurements as child processes of this binary (which must handle
/// [`crate::first_call::CHILD_FLAG`]) and writes `first-call.md` and `first-call.json`.
/// Returns whether every child succeeded.
fn first_call_section(cfg: &Config) -> std::io::Result<bool> {
    use crate::first_call;
    let exe = std::env::current_exe()?;
    let cases: Vec<&str> = first_call::CASES.iter().map(|c| c.0).collect();
    let (rows, errors) = first_call::measure(&exe, &cases, |_, _| {});
    let device = crate::device_name();
    let md = first_call::markdown(&device, &rows, &errors);
    println!("\n{md}");
    std::fs::create_dir_all(&cfg.out)?;
    std::fs::write(cfg.out.join("first-call.md"), &md)?;
    let json = first_call::json(&device, &rows, &errors);
    std::fs::write(
        cfg.out.join("first-call.json"),
        serde_json::to_string_pretty(&json).unwrap_or_default(),
    )?;
    Ok(errors.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cases_run_check_and_survive_panics() {
        let cfg = Config {
            quiet: true,
            ..Config::default()
        };
        let mut env = Env::new(cfg);
        let hits = std::cell::Cell::new(0);
        let rows = env.run_cases(vec![
            Case::new("core", "rayon", "copy", "i32", 8)
                .bytes(64, None)
                .reps(2)
                .cpu(|| hits.set(hits.get() + 1))
                .check(|| Verdict::Correct),
            Case::new("core", "bad", "copy", "i32", 8)
                .cpu(|| {})
                .check(|| Verdict::Wrong("off by one".into())),
            Case::new("core", "boom", "copy", "i32", 8).cpu(|| panic!("kaboom")),
            Case::new("core", "none", "copy", "i32", 8).absent("not built"),
        ]);
        assert_eq!(hits.get(), 3); // one warm-up, two timed
        assert_eq!(rows[0].correct, Some(true));
        assert!(rows[0].time.is_some() && rows[0].kind == "cpu");
        assert_eq!(
            (rows[1].correct, rows[1].note.as_str()),
            (Some(false), "off by one")
        );
        assert_eq!(rows[2].correct, Some(false));
        assert!(rows[2].note.contains("kaboom"), "{}", rows[2].note);
        assert_eq!(
            (rows[3].kind.as_str(), rows[3].note.as_str()),
            ("absent", "not built")
        );
        assert_eq!(env.progress.done, 4);
    }

    #[test]
    fn rows_derive_fractions_and_speedups() {
        let s = |ms| Stats::from_ms(vec![ms]);
        let mut rows = vec![
            Row {
                primitive: "reduce".into(),
                algorithm: "auto".into(),
                variant: "sum".into(),
                dtype: "i32".into(),
                n: 1 << 20,
                param: None,
                kind: "gpu".into(),
                bytes: 4 << 20,
                time: s(0.002),
                copy: s(0.004),
                copy_bytes: 8 << 20,
                rayon_ms: None,
                correct: Some(true),
                note: String::new(),
                peers: vec![],
            },
            Row {
                primitive: "reduce".into(),
                algorithm: "rayon".into(),
                variant: "sum".into(),
                dtype: "i32".into(),
                n: 1 << 20,
                param: None,
                kind: "cpu".into(),
                bytes: 4 << 20,
                time: s(0.2),
                copy: None,
                copy_bytes: 0,
                rayon_ms: None,
                correct: Some(true),
                note: String::new(),
                peers: vec![],
            },
        ];
        attach_rayon(&mut rows);
        let r = &rows[0];
        assert!((r.copy_fraction().unwrap() - 1.0).abs() < 1e-9);
        assert!((r.speedup().unwrap() - 100.0).abs() < 1e-9);
        assert_eq!(rows[1].rayon_ms, None);
    }
}
