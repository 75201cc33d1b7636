//! Embedded kernel images: PTX packs (one standalone PTX module per kernel) and cubin packs
//! (each kernel's machine code for one GPU architecture), as written by `scripts/ptx.py`.
//!
//! Why per kernel: the driver JIT-compiles a whole PTX module when it loads it, so one module
//! of 450 kernels made the first call of a crate wait for all 450. A pack lets the loader
//! compile (or, with a cubin, merely load) the kernels a program actually uses.
//!
//! This file only reads the formats; loading is `module.rs`'s job (with the `cuda` feature).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Marker line that opens each kernel's section of a PTX pack: `//@entry <name>`.
const MARKER: &str = "\n//@entry ";
const CUBIN_MAGIC: &[u8; 8] = b"GPCUBINS";
const CUBIN_VERSION: u32 = 1;

/// A crate's embedded kernels: PTX (a pack of per-kernel modules, or one plain module) and,
/// optionally, cubin packs of the same kernels for some GPU architectures.
///
/// ```
/// use gpu_core::{Cubins, Ptx};
/// // Plain PTX text (e.g. your own kernels, `include_str!` of NVRTC output) loads as one module.
/// static MINE: Ptx = Ptx::new("my-crate/weigh", ".version 7.0\n.target sm_70\n...");
/// // The gpu-prims crates embed packs written by scripts/ptx.py, with machine code beside them:
/// static PACKED: Ptx = Ptx::new("my-crate/packed", "//@entry k\n...")
///     .with_cubins(&[Cubins::new(90, b"GPCUBINS...")]);
/// assert_eq!(MINE.name, "my-crate/weigh");
/// assert!(PACKED.is_pack() && !MINE.is_pack());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Ptx {
    /// Unique module name (crate/file); the cache key.
    pub name: &'static str,
    /// The PTX text: a pack (sections opened by `//@entry <name>` lines) or one module.
    pub text: &'static str,
    /// Machine code of the same kernels, one pack per architecture.
    pub cubins: &'static [Cubins],
}

/// One cubin pack: every kernel of a [`Ptx`] pack compiled for `sm_<arch>`.
#[derive(Debug, Clone, Copy)]
pub struct Cubins {
    /// SASS architecture, e.g. 90 for sm_90.
    pub arch: u32,
    /// The pack's bytes (`include_bytes!` of `<module>.sm_<arch>.cubins`).
    pub pack: &'static [u8],
}

impl Cubins {
    /// Names a cubin pack for `sm_<arch>`.
    pub const fn new(arch: u32, pack: &'static [u8]) -> Self {
        Cubins { arch, pack }
    }
}

/// Which image of a kernel the driver loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KernelImage {
    /// Machine code for `sm_<arch>`, loaded without compiling.
    Cubin {
        /// The SASS architecture, e.g. 90.
        arch: u32,
    },
    /// PTX, compiled by the driver's JIT (or taken from its cache).
    Ptx,
}

/// Bytes a [`Ptx`] embeds in the program, by image.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedBytes {
    /// The PTX text.
    pub ptx: usize,
    /// Each cubin pack: (architecture, bytes).
    pub cubins: Vec<(u32, usize)>,
}

impl EmbeddedBytes {
    /// PTX and cubins together.
    pub fn total(&self) -> usize {
        self.ptx + self.cubins.iter().map(|c| c.1).sum::<usize>()
    }
}

impl Ptx {
    /// Names embedded PTX text (a pack or one module), without machine code.
    pub const fn new(name: &'static str, text: &'static str) -> Self {
        Ptx {
            name,
            text,
            cubins: &[],
        }
    }

    /// The same kernels with machine code for the given architectures.
    pub const fn with_cubins(self, cubins: &'static [Cubins]) -> Self {
        Ptx { cubins, ..self }
    }

    /// Whether the text is a pack of per-kernel modules (else it loads as one module).
    pub fn is_pack(&self) -> bool {
        self.text.starts_with(&MARKER[1..]) || self.text.contains(MARKER)
    }

    /// The kernel entry points, in source order.
    pub fn kernel_names(&self) -> Vec<&'static str> {
        self.index().order.clone()
    }

    /// The architectures (e.g. `[80, 90]`) whose cubin of `kernel` was built from this very
    /// PTX, so GPUs of those architectures load it without the JIT. Unreadable packs count as
    /// none.
    pub fn cubin_archs(&self, kernel: &str) -> Vec<u32> {
        let index = self.index();
        let mut archs: Vec<u32> = self
            .cubins
            .iter()
            .filter(|c| {
                matches!(index.cubin_for(kernel, (c.arch / 10, c.arch % 10)), Ok(Some((a, _))) if a == c.arch)
            })
            .map(|c| c.arch)
            .collect();
        archs.sort_unstable();
        archs.dedup();
        archs
    }

    /// What this embeds in a program, by image.
    pub fn embedded_bytes(&self) -> EmbeddedBytes {
        EmbeddedBytes {
            ptx: self.text.len(),
            cubins: self.cubins.iter().map(|c| (c.arch, c.pack.len())).collect(),
        }
    }

    /// The parsed index of this text and its cubins, built once per process.
    pub(crate) fn index(&self) -> Arc<PackIndex> {
        type Key = (usize, usize, usize);
        static INDEXES: OnceLock<Mutex<HashMap<Key, Arc<PackIndex>>>> = OnceLock::new();
        let key = (
            self.text.as_ptr() as usize,
            self.text.len(),
            self.cubins.as_ptr() as usize,
        );
        let mut map = INDEXES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        map.entry(key)
            .or_insert_with(|| Arc::new(PackIndex::parse(self)))
            .clone()
    }
}

/// One cubin pack's table: kernel → (hash of the PTX section it was built from, cubin).
type CubinTable = HashMap<&'static str, (u64, &'static [u8])>;

/// Where each kernel's images lie inside a [`Ptx`].
#[derive(Debug)]
pub(crate) struct PackIndex {
    /// Entry points in source order.
    pub(crate) order: Vec<&'static str>,
    /// Entry → its standalone PTX module (packs only).
    sections: HashMap<&'static str, &'static str>,
    /// Per architecture: entry → (hash of the PTX section it was built from, cubin), or why
    /// the pack could not be read.
    cubins: Vec<(u32, Result<CubinTable, String>)>,
}

impl PackIndex {
    fn parse(ptx: &Ptx) -> PackIndex {
        let text = ptx.text;
        let mut order = Vec::new();
        let mut sections = HashMap::new();
        if ptx.is_pack() {
            // Positions of each marker's leading newline (a pack may also start with one).
            let mut starts: Vec<usize> = text.match_indices(MARKER).map(|(i, _)| i + 1).collect();
            if text.starts_with(&MARKER[1..]) {
                starts.insert(0, 0);
            }
            for (k, &start) in starts.iter().enumerate() {
                let line_end = text[start..].find('\n').map_or(text.len(), |e| start + e);
                let name = text[start + MARKER.len() - 1..line_end].trim();
                let end = starts.get(k + 1).copied().unwrap_or(text.len());
                let body = &text[(line_end + 1).min(end)..end];
                order.push(name);
                sections.insert(name, body);
            }
        } else {
            for line in text.lines() {
                let l = line.trim_start();
                let rest = l
                    .strip_prefix(".visible .entry ")
                    .or_else(|| l.strip_prefix(".entry "));
                if let Some(rest) = rest {
                    let name = rest.split(['(', ' ', '\t']).next().unwrap_or("");
                    if !name.is_empty() {
                        order.push(name);
                    }
                }
            }
        }
        let cubins = ptx
            .cubins
            .iter()
            .map(|c| (c.arch, parse_cubin_pack(c)))
            .collect();
        PackIndex {
            order,
            sections,
            cubins,
        }
    }

    /// The standalone PTX module of `entry` (packs only).
    pub(crate) fn section(&self, entry: &str) -> Option<&'static str> {
        self.sections.get(entry).copied()
    }

    /// The cubin to load for `entry` on a GPU of compute capability `cc`: from the newest
    /// pack of the same major version and a minor version not above the GPU's (SASS runs
    /// only there), and only if it was built from this very PTX section. `Ok(None)` means
    /// "use the PTX"; an unreadable pack is an error naming it.
    pub(crate) fn cubin_for(
        &self,
        entry: &str,
        cc: (u32, u32),
    ) -> Result<Option<(u32, &'static [u8])>, String> {
        let best = self
            .cubins
            .iter()
            .filter(|(arch, _)| arch / 10 == cc.0 && arch % 10 <= cc.1)
            .max_by_key(|(arch, _)| *arch);
        let Some((arch, pack)) = best else {
            return Ok(None);
        };
        let pack = pack
            .as_ref()
            .map_err(|e| format!("the sm_{arch} cubin pack is unreadable: {e}"))?;
        let Some(&(hash, cubin)) = pack.get(entry) else {
            return Ok(None);
        };
        match self.section(entry) {
            Some(section) if fnv1a64(section.as_bytes()) == hash => Ok(Some((*arch, cubin))),
            _ => Ok(None),
        }
    }
}

/// Reads a cubin pack (format in `scripts/kernel_pack.py`).
fn parse_cubin_pack(c: &Cubins) -> Result<CubinTable, String> {
    let b = c.pack;
    let u32_at = |at: usize| -> Result<u32, String> {
        b.get(at..at + 4)
            .map(|s| u32::from_le_bytes(s.try_into().expect("4 bytes")))
            .ok_or_else(|| format!("truncated at byte {at}"))
    };
    let u64_at = |at: usize| -> Result<u64, String> {
        b.get(at..at + 8)
            .map(|s| u64::from_le_bytes(s.try_into().expect("8 bytes")))
            .ok_or_else(|| format!("truncated at byte {at}"))
    };
    if b.get(..8) != Some(&CUBIN_MAGIC[..]) {
        return Err("bad magic (not a gpu-prims cubin pack)".into());
    }
    let (version, arch, count) = (u32_at(8)?, u32_at(12)?, u32_at(16)?);
    if version != CUBIN_VERSION {
        return Err(format!("version {version}, expected {CUBIN_VERSION}"));
    }
    if arch != c.arch {
        return Err(format!("holds sm_{arch} code, declared as sm_{}", c.arch));
    }
    let mut map = HashMap::new();
    let mut at = 24;
    for _ in 0..count {
        let len = b
            .get(at..at + 2)
            .map(|s| u16::from_le_bytes([s[0], s[1]]) as usize)
            .ok_or_else(|| format!("truncated at byte {at}"))?;
        let name = b
            .get(at + 2..at + 2 + len)
            .and_then(|s| std::str::from_utf8(s).ok())
            .ok_or_else(|| format!("bad kernel name at byte {at}"))?;
        at += 2 + len;
        let (hash, offset, size) = (u64_at(at)?, u64_at(at + 8)?, u64_at(at + 16)?);
        at += 24;
        let cubin = usize::try_from(offset)
            .ok()
            .zip(usize::try_from(size).ok())
            .and_then(|(o, s)| b.get(o..o.checked_add(s)?))
            .ok_or_else(|| format!("kernel `{name}` lies outside the pack"))?;
        map.insert(name, (hash, cubin));
    }
    Ok(map)
}

/// 64-bit FNV-1a: ties each cubin to the PTX section it was compiled from.
pub(crate) fn fnv1a64(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ b as u64).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PACK: &str = "// header\n//@entry a\n.version 8.0\nA\n//@entry b_2\n.version 8.0\nB\n";

    fn cubin_pack(arch: u32, items: &[(&str, u64, &[u8])]) -> Vec<u8> {
        let mut table = Vec::new();
        let head = 24 + items.iter().map(|i| 2 + i.0.len() + 24).sum::<usize>();
        let mut pos = head.next_multiple_of(8);
        let mut blobs = vec![0u8; pos - head];
        for (name, hash, blob) in items {
            table.extend((name.len() as u16).to_le_bytes());
            table.extend(name.as_bytes());
            table.extend(hash.to_le_bytes());
            table.extend((pos as u64).to_le_bytes());
            table.extend((blob.len() as u64).to_le_bytes());
            blobs.extend(*blob);
            let padded = blob.len().next_multiple_of(8);
            blobs.resize(blobs.len() + padded - blob.len(), 0);
            pos += padded;
        }
        let mut out = b"GPCUBINS".to_vec();
        for v in [1u32, arch, items.len() as u32, 0] {
            out.extend(v.to_le_bytes());
        }
        out.extend(table);
        out.extend(blobs);
        out
    }

    #[test]
    fn pack_sections_are_found_in_order() {
        let ptx = Ptx::new("t/pack", PACK);
        assert!(ptx.is_pack());
        let idx = PackIndex::parse(&ptx);
        assert_eq!(idx.order, vec!["a", "b_2"]);
        assert_eq!(idx.section("a"), Some(".version 8.0\nA\n"));
        assert_eq!(idx.section("b_2"), Some(".version 8.0\nB\n"));
        assert_eq!(idx.section("c"), None);
    }

    #[test]
    fn plain_ptx_lists_its_entries() {
        let text =
            ".version 8.0\n.visible .entry k1(\n.param .u64 p\n)\n{\nret;\n}\n.entry k2()\n{}\n";
        let ptx = Ptx::new("t/plain", text);
        assert!(!ptx.is_pack());
        assert_eq!(PackIndex::parse(&ptx).order, vec!["k1", "k2"]);
    }

    #[test]
    fn cubins_are_chosen_by_architecture_and_hash() {
        let a = fnv1a64(b".version 8.0\nA\n");
        let sm80 = cubin_pack(80, &[("a", a, b"code80a"), ("b_2", 1, b"stale")]).leak();
        let sm90 = cubin_pack(90, &[("a", a, b"code90a!!")]).leak();
        let cubins = vec![Cubins::new(80, sm80), Cubins::new(90, sm90)].leak();
        let idx = PackIndex::parse(&Ptx::new("t/cubins", PACK).with_cubins(cubins));
        assert_eq!(
            idx.cubin_for("a", (9, 0)),
            Ok(Some((90, &b"code90a!!"[..])))
        );
        assert_eq!(idx.cubin_for("a", (8, 9)), Ok(Some((80, &b"code80a"[..]))));
        assert_eq!(idx.cubin_for("a", (8, 0)), Ok(Some((80, &b"code80a"[..]))));
        // Other majors (older or newer GPUs) take the PTX.
        assert_eq!(idx.cubin_for("a", (7, 5)), Ok(None));
        assert_eq!(idx.cubin_for("a", (10, 0)), Ok(None));
        // A cubin built from another PTX section is never used; nor is a missing one.
        assert_eq!(idx.cubin_for("b_2", (8, 0)), Ok(None));
        assert_eq!(idx.cubin_for("b_2", (9, 0)), Ok(None));
        let ptx = Ptx::new("t/cubins", PACK).with_cubins(cubins);
        assert_eq!(ptx.cubin_archs("a"), vec![80, 90]);
        assert_eq!(ptx.cubin_archs("b_2"), Vec::<u32>::new());
        assert_eq!(
            ptx.embedded_bytes().cubins,
            vec![(80, sm80.len()), (90, sm90.len())]
        );
    }

    #[test]
    fn corrupt_cubin_packs_are_reported() {
        let mut bad = cubin_pack(90, &[("a", 0, b"x")]);
        bad.truncate(30);
        let cubins = vec![Cubins::new(90, bad.leak()), Cubins::new(80, b"junk")].leak();
        let idx = PackIndex::parse(&Ptx::new("t/bad", PACK).with_cubins(cubins));
        assert!(idx
            .cubin_for("a", (9, 0))
            .unwrap_err()
            .contains("truncated"));
        assert!(idx
            .cubin_for("a", (8, 6))
            .unwrap_err()
            .contains("bad magic"));
        let wrong_arch = vec![Cubins::new(90, cubin_pack(80, &[]).leak())].leak();
        let idx = PackIndex::parse(&Ptx::new("t/arch", PACK).with_cubins(wrong_arch));
        assert!(idx.cubin_for("a", (9, 0)).unwrap_err().contains("sm_80"));
    }

    #[test]
    fn fnv_matches_the_reference_values() {
        assert_eq!(fnv1a64(b""), 0xcbf29ce484222325);
        assert_eq!(fnv1a64(b"a"), 0xaf63dc4c8601ec8c);
    }
}
