//! Launch policies chosen per device: the numbers the algorithms take from the GPU they run on
//! (block sizes, size thresholds, strategy crossovers), apart from the algorithms, as CUB keeps
//! its tuning policies apart from its kernels.
//!
//! Every policy is a named integer, a [`Key`] of [`KEYS`]. Its value for a device comes from,
//! first to last:
//!
//! 1. the built-in rule: [`Key::value_for`] on the device's [`DeviceProfile`] — the value
//!    measured on an H100 for GPUs of ordinary memory bandwidth per SM, the one measured on an
//!    H200 for GPUs with at least [`FAST_MEMORY_PER_SM`] bytes per second per SM (whatever their
//!    name: a table keyed by architecture cannot tell an H100 from an H200);
//! 2. the tables named by [`TUNING_VAR`] (`GPU_PRIMS_TUNING=path[:path…]`), read when a `Gpu`
//!    is first made, each applied to the devices its `device =` line names (all, without one);
//! 3. `Gpu::set_tuning` (with the `cuda` feature).
//!
//! A table is text, one `key = value` per line, `#` comments; `bin tune` (the workspace's
//! tuning tool, docs/tuning.md) sweeps the keys on the GPU it runs on and writes one.
//!
//! ```
//! use gpu_core::tuning::{DeviceProfile, Tuning};
//! let table = Tuning::parse("# from bin tune\ndevice = NVIDIA H200\nscan.staged_block = 512\n")?;
//! assert_eq!(table.get("scan.staged_block"), Some(512));
//! assert!(table.applies_to("NVIDIA H200"));
//! assert!(!table.applies_to("NVIDIA H100 80GB HBM3"));
//!
//! // The built-in rule reads the device's memory bandwidth per SM.
//! let h200 = DeviceProfile::new("NVIDIA H200", (9, 0), 132, 4.8e12);
//! assert!(h200.fast_memory());
//! assert!(Tuning::parse("scan.staged_block = 500").is_err()); // not a whole number of warps
//! assert!(Tuning::parse("reduce.block = 768").is_err()); // not a power of two
//! # Ok::<(), gpu_core::Error>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use crate::{Error, Result};

/// Environment variable naming tuning tables to apply (paths separated by `:`), read once per
/// device when its first `Gpu` is made.
pub const TUNING_VAR: &str = "GPU_PRIMS_TUNING";

/// Peak memory bandwidth per SM (bytes per second) from which a device takes the built-in
/// values measured on the H200 (4.8 TB/s over 132 SMs, 36 GB/s per SM) rather than those
/// measured on the H100 (3.35 TB/s, 25 GB/s per SM): halfway between the two.
pub const FAST_MEMORY_PER_SM: f64 = 30e9;

/// What the built-in rule reads of a device. Kept apart from the driver so the rule is tested
/// anywhere.
#[derive(Debug, Clone, PartialEq)]
pub struct DeviceProfile {
    /// Marketing name, e.g. `NVIDIA H200`.
    pub name: String,
    /// Compute capability (major, minor).
    pub compute_capability: (u32, u32),
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Peak memory bandwidth in bytes per second (twice the memory clock times the bus width);
    /// 0 where the driver does not say.
    pub memory_bandwidth: f64,
}

impl DeviceProfile {
    /// A profile from its parts.
    pub fn new(
        name: impl Into<String>,
        compute_capability: (u32, u32),
        sm_count: u32,
        memory_bandwidth: f64,
    ) -> Self {
        DeviceProfile {
            name: name.into(),
            compute_capability,
            sm_count,
            memory_bandwidth,
        }
    }

    /// Peak memory bandwidth per SM, bytes per second (0 when either is unknown).
    pub fn bandwidth_per_sm(&self) -> f64 {
        if self.sm_count == 0 {
            0.0
        } else {
            self.memory_bandwidth / self.sm_count as f64
        }
    }

    /// Whether the built-in rule gives this device the values measured on the H200: at least
    /// [`FAST_MEMORY_PER_SM`] of memory bandwidth per SM.
    pub fn fast_memory(&self) -> bool {
        self.bandwidth_per_sm() >= FAST_MEMORY_PER_SM
    }
}

/// One policy: its name, what it sets, the values it may take, and its built-in values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Key {
    /// `crate.policy`, e.g. `scan.staged_block`.
    pub name: &'static str,
    /// What it sets, in a line.
    pub doc: &'static str,
    /// Smallest value accepted.
    pub min: u64,
    /// Largest value accepted.
    pub max: u64,
    /// Whether the value must be a power of two (block sizes).
    pub power_of_two: bool,
    /// The value must be a multiple of this (32 for blocks that need only whole warps; 1 for
    /// any value).
    pub multiple_of: u64,
    /// Built-in value for devices of ordinary memory bandwidth per SM (measured on the H100).
    pub ordinary: u64,
    /// Built-in value from [`FAST_MEMORY_PER_SM`] on (measured on the H200).
    pub fast_memory: u64,
}

impl Key {
    /// The built-in value for a device.
    pub fn value_for(&self, profile: &DeviceProfile) -> u64 {
        if profile.fast_memory() {
            self.fast_memory
        } else {
            self.ordinary
        }
    }

    /// Checks a value against the key's range.
    pub fn check(&self, value: u64) -> Result<()> {
        if value < self.min || value > self.max {
            return Err(Error::invalid(
                "tuning",
                format!(
                    "`{}` = {value}: must lie in {}..={}",
                    self.name, self.min, self.max
                ),
            ));
        }
        if self.power_of_two && !value.is_power_of_two() {
            return Err(Error::invalid(
                "tuning",
                format!("`{}` = {value}: must be a power of two", self.name),
            ));
        }
        if self.multiple_of > 1 && value % self.multiple_of != 0 {
            return Err(Error::invalid(
                "tuning",
                format!(
                    "`{}` = {value}: must be a multiple of {}",
                    self.name, self.multiple_of
                ),
            ));
        }
        Ok(())
    }
}

const fn block_key(name: &'static str, doc: &'static str, ordinary: u64, fast: u64) -> Key {
    Key {
        name,
        doc,
        min: 32,
        max: 1024,
        power_of_two: true,
        multiple_of: 1,
        ordinary,
        fast_memory: fast,
    }
}

/// A block whose kernel takes any whole number of warps (the staged look-back tiles: a tile is
/// its warps' segments, so 768 threads make 24 of them).
const fn warp_block_key(name: &'static str, doc: &'static str, ordinary: u64, fast: u64) -> Key {
    Key {
        name,
        doc,
        min: 32,
        max: 1024,
        power_of_two: false,
        multiple_of: 32,
        ordinary,
        fast_memory: fast,
    }
}

const fn count_key(
    name: &'static str,
    doc: &'static str,
    min: u64,
    max: u64,
    ordinary: u64,
    fast: u64,
) -> Key {
    Key {
        name,
        doc,
        min,
        max,
        power_of_two: false,
        multiple_of: 1,
        ordinary,
        fast_memory: fast,
    }
}

/// Every policy the crates read, with its built-in values (docs/tuning.md gives the
/// measurements behind each).
pub const KEYS: &[Key] = &[
    block_key(
        "reduce.block",
        "threads per block of the default flat reduction (gpu-reduce's Auto kernel)",
        512,
        512,
    ),
    block_key(
        "scan.block_small",
        "threads per block of the look-back scan of 4-byte values below scan.medium_from",
        256,
        256,
    ),
    count_key(
        "scan.medium_from",
        "values from which the look-back scan of 4-byte values takes scan.block_medium",
        1,
        1 << 40,
        1 << 21,
        1 << 21,
    ),
    block_key(
        "scan.block_medium",
        "threads per block of the look-back scan of 4-byte values from scan.medium_from",
        512,
        512,
    ),
    count_key(
        "scan.large_from",
        "values from which the look-back scan of 4-byte values takes scan.block_large",
        1,
        1 << 40,
        1 << 25,
        1 << 25,
    ),
    block_key(
        "scan.block_large",
        "threads per block of the look-back scan of 4-byte values from scan.large_from",
        1024,
        1024,
    ),
    count_key(
        "scan.staged_from",
        "values from which the look-back scan stages its tiles in shared memory (compute \
         capability 8.0+, TileStaging::Auto)",
        1,
        1 << 40,
        1 << 25,
        1 << 24,
    ),
    warp_block_key(
        "scan.staged_block_medium",
        "threads per block of the staged look-back scan of 4- and 8-byte values below \
         scan.large_from (a multiple of 32)",
        1024,
        256,
    ),
    warp_block_key(
        "scan.staged_block",
        "threads per block of the staged look-back scan of 4- and 8-byte values from \
         scan.large_from (a multiple of 32)",
        1024,
        1024,
    ),
    count_key(
        "scan.prefetch_from",
        "values from which the staged flat look-back scans prefetch a later tile's input into \
         L2 (compute capability 9.0+; 2^40: never)",
        1,
        1 << 40,
        1 << 27,
        1 << 27,
    ),
    count_key(
        "scan.shaped_prefetch_from",
        "values from which the long-span columns scans and the staged segment tiles of \
         device-resident data prefetch a later span or tile into L2, the columns scans' column \
         tiles sharing scan.prefetch_kib (compute capability 9.0+; 2^40: never)",
        1,
        1 << 40,
        1 << 27,
        1 << 27,
    ),
    count_key(
        "scan.prefetch_kib",
        "how far ahead of its own tile a scan tile prefetches, in KiB (rounded to whole tiles)",
        1,
        1 << 20,
        7 << 10,
        7 << 10,
    ),
    count_key(
        "scan.warp_specialized_from",
        "values from which the flat scans of sum, prod, min and max over 4- and 8-byte values \
         (float sums and products with either look-back) run the warp-specialised \
         kernel, where input and output are 16-byte aligned and the block and tile staging are \
         left to the device (compute capability 9.0+; 2^40: never)",
        1,
        1 << 40,
        1 << 24,
        1 << 24,
    ),
    count_key(
        "scan.column_staged_from",
        "values from which the long-span columns scans hold 32 more vector rows a thread in \
         shared memory, spans twice as long (compute capability 9.0+; 2^40: never)",
        1,
        1 << 40,
        1 << 24,
        1 << 24,
    ),
    count_key(
        "conv1d.fft_min_width",
        "shortest f32 mask Strategy::Auto runs through the block FFT",
        2,
        1 << 20,
        33,
        33,
    ),
    count_key(
        "conv1d.fft_min_width_f64",
        "shortest f64 mask Strategy::Auto runs through the block FFT",
        2,
        1 << 20,
        64,
        64,
    ),
    count_key(
        "conv1d.fft_span_from",
        "shortest f32 mask Strategy::Auto runs through the block FFT's 16384-point spans where \
         its width table gives smaller ones (lowers the table's crossing, never raises it)",
        2,
        1 << 20,
        751,
        1151,
    ),
    count_key(
        "conv1d.fft_span_from_f64",
        "shortest f64 mask Strategy::Auto runs through the block FFT's 16384-point spans where \
         its width table gives smaller ones",
        2,
        1 << 20,
        1500,
        2048,
    ),
    count_key(
        "conv1d.cufft_min_width",
        "shortest f32, f16 or bf16 mask Strategy::Auto runs through cuFFT",
        2,
        1 << 40,
        28_650,
        28_650,
    ),
    count_key(
        "conv1d.fft_parts_from",
        "shortest f32 mask Strategy::Auto runs through the block FFT with the mask in parts \
         (Strategy::FftParts) instead of one span or cuFFT",
        2,
        1 << 40,
        21_385,
        21_385,
    ),
    count_key(
        "conv1d.fft_parts_to",
        "widest f32 mask Strategy::Auto runs with the mask in parts where libcufft loads \
         (cuFFT past it; the parts at any width where the mask fits them and libcufft does not \
         load)",
        2,
        1 << 40,
        126_336,
        80_000,
    ),
    count_key(
        "conv1d.fft_parts_from_f64",
        "shortest f64 mask Strategy::Auto runs with the mask in parts",
        2,
        1 << 40,
        10_144,
        10_144,
    ),
    count_key(
        "conv1d.fft_parts_to_f64",
        "widest f64 mask Strategy::Auto runs with the mask in parts where libcufft loads",
        2,
        1 << 40,
        39_074,
        24_000,
    ),
    count_key(
        "conv1d.fft_even_odd_from",
        "smallest FFT size (span points, 16384 or more) Strategy::Auto and Strategy::Fft run \
         one tile's even and odd points per transform instead of two tiles (past 16384 points \
         for f32, f16 and bf16, 8192 for f64: always)",
        16384,
        1 << 40,
        16384,
        16384,
    ),
    count_key(
        "conv1d.wide_tile_from",
        "outputs per row from which Strategy::Auto runs f32 masks of 5 to 32 with 24 outputs \
         per thread instead of 16 (2^40: never)",
        1,
        1 << 40,
        1 << 40,
        1 << 24,
    ),
    count_key(
        "conv1d.half_wide_tile_from",
        "outputs per row from which Strategy::Auto runs f16 and bf16 masks of 1 to 32 on FMAs \
         with 32 outputs per thread instead of 16 (2^40: never)",
        1,
        1 << 40,
        1 << 40,
        1 << 25,
    ),
];

/// The key named `name`, if there is one.
pub fn key(name: &str) -> Option<&'static Key> {
    KEYS.iter().find(|k| k.name == name)
}

fn unknown(name: &str) -> Error {
    Error::invalid(
        "tuning",
        format!(
            "unknown key `{name}`; the keys are {}",
            KEYS.iter().map(|k| k.name).collect::<Vec<_>>().join(", ")
        ),
    )
}

/// A tuning table: values for some of the [`KEYS`], optionally for one device only.
///
/// Values are checked when set or parsed, so a table that exists is valid.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tuning {
    device: Option<String>,
    values: BTreeMap<&'static str, u64>,
}

impl Tuning {
    /// An empty table (every key at its built-in value), for any device.
    pub fn new() -> Self {
        Self::default()
    }

    /// Restricts the table to devices whose name is `name` (as `DeviceProperties::name`).
    pub fn for_device(mut self, name: impl Into<String>) -> Self {
        self.device = Some(name.into());
        self
    }

    /// The device the table is for (`None`: any).
    pub fn device(&self) -> Option<&str> {
        self.device.as_deref()
    }

    /// Whether the table applies to a device of this name.
    pub fn applies_to(&self, device_name: &str) -> bool {
        self.device
            .as_deref()
            .map_or(true, |d| d.trim() == device_name.trim())
    }

    /// The value set for `name`, if any.
    pub fn get(&self, name: &str) -> Option<u64> {
        self.values.get(name).copied()
    }

    /// Sets `name` to `value`: an error naming the key for an unknown key or a value out of its
    /// range.
    pub fn set(&mut self, name: &str, value: u64) -> Result<&mut Self> {
        let key = key(name).ok_or_else(|| unknown(name))?;
        key.check(value)?;
        self.values.insert(key.name, value);
        Ok(self)
    }

    /// Removes `name` (back to the built-in value).
    pub fn remove(&mut self, name: &str) -> Option<u64> {
        self.values.remove(name)
    }

    /// The values set, by key name.
    pub fn iter(&self) -> impl Iterator<Item = (&'static str, u64)> + '_ {
        self.values.iter().map(|(k, v)| (*k, *v))
    }

    /// Whether no value is set.
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// `other`'s values over this table's (its device line too, when it has one).
    pub fn overlay(&mut self, other: &Tuning) {
        self.values
            .extend(other.values.iter().map(|(k, v)| (*k, *v)));
        if other.device.is_some() {
            self.device.clone_from(&other.device);
        }
    }

    /// The value of `name` for a device: this table's, else the built-in one.
    ///
    /// # Panics
    /// On a name that is not one of [`KEYS`] (a bug in the caller, never user input).
    pub fn value(&self, name: &str, profile: &DeviceProfile) -> u64 {
        let key = key(name).unwrap_or_else(|| panic!("tuning key `{name}` is not in KEYS"));
        self.get(name).unwrap_or_else(|| key.value_for(profile))
    }

    /// Parses a table: `key = value` lines (values may use `_` separators or `2^k`), `device =
    /// name` at most once, blank lines and `#` comments. Errors name the line.
    pub fn parse(text: &str) -> Result<Self> {
        let mut t = Tuning::new();
        for (i, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let at = |why: String| Error::invalid("tuning", format!("line {}: {why}", i + 1));
            let (name, value) = line
                .split_once('=')
                .ok_or_else(|| at(format!("`{line}` is not `key = value`")))?;
            let (name, value) = (name.trim(), value.trim());
            if name == "device" {
                if t.device.is_some() {
                    return Err(at("a second `device` line".into()));
                }
                t.device = Some(value.to_string());
                continue;
            }
            let v = parse_value(value).ok_or_else(|| at(format!("`{value}` is not a count")))?;
            t.set(name, v).map_err(|e| at(reason(e)))?;
        }
        Ok(t)
    }

    /// Reads a table from a file ([`Tuning::parse`]); errors name the file.
    pub fn read(path: impl AsRef<Path>) -> Result<Self> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|e| {
            Error::invalid(
                "tuning",
                format!("cannot read tuning table {}: {e}", path.display()),
            )
        })?;
        Self::parse(&text).map_err(|e| {
            Error::invalid(
                "tuning",
                format!("tuning table {}: {}", path.display(), reason(e)),
            )
        })
    }

    /// The tables of [`TUNING_VAR`] that apply to `device_name`, overlaid in order (empty when
    /// the variable is unset).
    pub fn from_env(device_name: &str) -> Result<Self> {
        let mut t = Tuning::new();
        let Some(list) = std::env::var_os(TUNING_VAR) else {
            return Ok(t);
        };
        for path in std::env::split_paths(&list) {
            if path.as_os_str().is_empty() {
                continue;
            }
            let table = Self::read(&path)?;
            if table.applies_to(device_name) {
                t.values.extend(table.values);
            }
        }
        Ok(t)
    }
}

/// The reason of an `InvalidArgument` (the whole message otherwise), to nest it in another.
fn reason(e: Error) -> String {
    match e {
        Error::InvalidArgument { reason, .. } => reason,
        e => e.to_string(),
    }
}

fn parse_value(s: &str) -> Option<u64> {
    let s = s.replace('_', "");
    if let Some(k) = s.strip_prefix("2^") {
        let k: u32 = k.parse().ok()?;
        return 1u64.checked_shl(k).filter(|_| k < 64);
    }
    s.parse().ok()
}

impl fmt::Display for Tuning {
    /// The table in the text form [`Tuning::parse`] reads, each key with its line of doc.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(d) = &self.device {
            writeln!(f, "device = {d}")?;
        }
        for (name, value) in &self.values {
            if let Some(k) = key(name) {
                writeln!(f, "# {}", k.doc)?;
            }
            writeln!(f, "{name} = {value}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h100() -> DeviceProfile {
        DeviceProfile::new("NVIDIA H100 80GB HBM3", (9, 0), 132, 3.35e12)
    }
    fn h200() -> DeviceProfile {
        DeviceProfile::new("NVIDIA H200", (9, 0), 132, 4.8e12)
    }

    #[test]
    fn the_rule_tells_the_h200_from_the_h100() {
        assert!(!h100().fast_memory());
        assert!(h200().fast_memory());
        // An unknown bandwidth is ordinary.
        assert!(!DeviceProfile::new("x", (8, 0), 0, 0.0).fast_memory());
        assert!(!DeviceProfile::new("x", (8, 0), 108, 0.0).fast_memory());
    }

    #[test]
    fn keys_are_unique_and_their_built_ins_valid() {
        for (i, k) in KEYS.iter().enumerate() {
            assert!(KEYS[..i].iter().all(|o| o.name != k.name), "{}", k.name);
            k.check(k.ordinary).unwrap();
            k.check(k.fast_memory).unwrap();
            assert_eq!(key(k.name), Some(k));
        }
    }

    #[test]
    fn values_come_from_the_table_else_the_rule() {
        let mut t = Tuning::new();
        let k = key("scan.staged_block").unwrap();
        assert_eq!(t.value(k.name, &h100()), k.ordinary);
        assert_eq!(t.value(k.name, &h200()), k.fast_memory);
        t.set(k.name, 256).unwrap();
        assert_eq!(t.value(k.name, &h100()), 256);
        assert_eq!(t.remove(k.name), Some(256));
        assert!(t.is_empty());
    }

    #[test]
    fn text_round_trips() {
        let mut t = Tuning::new().for_device("NVIDIA H200");
        t.set("scan.staged_block", 512).unwrap();
        t.set("scan.staged_from", 1 << 24).unwrap();
        t.set("conv1d.fft_min_width", 48).unwrap();
        let text = t.to_string();
        assert!(text.contains("scan.staged_from = 16777216"), "{text}");
        assert_eq!(Tuning::parse(&text).unwrap(), t);
        let t2 = Tuning::parse("scan.staged_from = 2^24 # comment\n\nreduce.block=1_024").unwrap();
        assert_eq!(t2.get("scan.staged_from"), Some(1 << 24));
        assert_eq!(t2.get("reduce.block"), Some(1024));
        assert!(t2.applies_to("any GPU"));
    }

    #[test]
    fn bad_tables_name_the_line_and_the_key() {
        let e = |s: &str| Tuning::parse(s).unwrap_err().to_string();
        assert!(e("scan.nope = 3").contains("line 1: unknown key `scan.nope`"));
        assert!(e("\nreduce.block = 48").contains("line 2: `reduce.block` = 48: must be a power"));
        assert!(e("reduce.block = 2048").contains("must lie in 32..=1024"));
        assert!(e("reduce.block").contains("is not `key = value`"));
        assert!(e("reduce.block = many").contains("`many` is not a count"));
        assert!(e("scan.staged_from = 2^64").contains("is not a count"));
        assert!(e("device = a\ndevice = b").contains("line 2: a second `device` line"));
        let mut t = Tuning::new();
        assert!(t.set("reduce.block", 0).is_err());
        // Staged look-back blocks take whole warps; the others powers of two.
        let e = t.set("scan.staged_block", 500).unwrap_err().to_string();
        assert!(e.contains("multiple of 32"), "{e}");
        let e = t.set("scan.block_large", 768).unwrap_err().to_string();
        assert!(e.contains("power of two"), "{e}");
        assert!(t.is_empty());
        assert!(t.set("scan.staged_block_medium", 768).is_ok());
    }

    #[test]
    fn tables_overlay_and_files_read() {
        let dir = std::env::temp_dir().join(format!("gp-tuning-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("t.txt");
        std::fs::write(&p, "device = NVIDIA H200\nreduce.block = 256\n").unwrap();
        let t = Tuning::read(&p).unwrap();
        assert_eq!(t.device(), Some("NVIDIA H200"));
        let mut base = Tuning::new();
        base.set("reduce.block", 1024).unwrap();
        base.set("scan.block_small", 128).unwrap();
        base.overlay(&t);
        assert_eq!(base.get("reduce.block"), Some(256));
        assert_eq!(base.get("scan.block_small"), Some(128));
        let missing = Tuning::read(dir.join("missing.txt"))
            .unwrap_err()
            .to_string();
        assert!(missing.contains("cannot read tuning table"), "{missing}");
        std::fs::write(&p, "reduce.block = 3\n").unwrap();
        let bad = Tuning::read(&p).unwrap_err().to_string();
        assert!(bad.contains("t.txt") && bad.contains("line 1"), "{bad}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
