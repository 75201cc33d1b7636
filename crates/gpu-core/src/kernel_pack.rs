//! Embedded kernel images: PTX packs (one standalone PTX module per kernel) and cubins (each
//! kernel's machine code for one GPU architecture), as `scripts/ptx.py` writes them into
//! kernel archives (`kernel_archive.rs`).
//!
//! Why per kernel: the driver JIT-compiles a whole PTX module when it loads it, so one module
//! of 450 kernels made the first call of a crate wait for all 450. A pack lets the loader
//! compile (or, with a cubin, merely load) the kernels a program actually uses.
//!
//! This file only reads the formats; loading is `module.rs`'s job (with the `cuda` feature).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use crate::kernel_archive::{Archive, KIND_CUBINS, KIND_PTX};
#[cfg(doc)]
use crate::Error;

/// Marker line that opens each kernel's section of a PTX pack text: `//@entry <name>`.
const MARKER: &str = "\n//@entry ";

/// A crate's embedded kernels: PTX (a kernel archive written by `scripts/ptx.py`, a text pack
/// of per-kernel modules, or one plain module) and, optionally, cubin archives of the same
/// kernels for some GPU architectures.
///
/// ```
/// use gpu_core::{Cubins, Ptx};
/// // Plain PTX text (e.g. your own kernels, `include_str!` of NVRTC output) loads as one module.
/// static MINE: Ptx = Ptx::new("my-crate/weigh", ".version 7.0\n.target sm_70\n...");
/// // The gpu-prims crates embed kernel archives written by scripts/ptx.py, machine code beside:
/// static PACKED: Ptx = Ptx::archive("my-crate/packed", b"GPKARCH1...")
///     .with_cubins(&[Cubins::new(90, b"GPKARCH1...")]);
/// assert_eq!(MINE.name, "my-crate/weigh");
/// assert!(PACKED.is_pack() && !MINE.is_pack());
/// ```
#[derive(Debug, Clone, Copy)]
pub struct Ptx {
    /// Unique module name (crate/file); the cache key.
    pub name: &'static str,
    source: Source,
    /// Machine code of the same kernels, one archive per architecture.
    pub cubins: &'static [Cubins],
}

/// Where a [`Ptx`]'s PTX lies.
#[derive(Debug, Clone, Copy)]
enum Source {
    /// PTX text: a pack (sections opened by `//@entry <name>` lines) or one module.
    Text(&'static str),
    /// A kernel archive of per-kernel PTX modules.
    Archive(&'static [u8]),
}

/// One cubin archive: every kernel of a [`Ptx`] compiled for `sm_<arch>`.
#[derive(Debug, Clone, Copy)]
pub struct Cubins {
    /// SASS architecture, e.g. 90 for sm_90.
    pub arch: u32,
    /// The archive's bytes (`include_bytes!` of `<module>.sm_<arch>.kpack`).
    pub pack: &'static [u8],
}

impl Cubins {
    /// Names a cubin archive for `sm_<arch>`.
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

/// Bytes a [`Ptx`] embeds in the program, by image (compressed, as embedded).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmbeddedBytes {
    /// The PTX (text, or its kernel archive).
    pub ptx: usize,
    /// Each cubin archive: (architecture, bytes).
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
            source: Source::Text(text),
            cubins: &[],
        }
    }

    /// Names an embedded kernel archive of PTX (`<module>.ptx.kpack`, written by
    /// `scripts/ptx.py`), without machine code.
    pub const fn archive(name: &'static str, archive: &'static [u8]) -> Self {
        Ptx {
            name,
            source: Source::Archive(archive),
            cubins: &[],
        }
    }

    /// The same kernels with machine code for the given architectures.
    pub const fn with_cubins(self, cubins: &'static [Cubins]) -> Self {
        Ptx { cubins, ..self }
    }

    /// The same PTX under another (cache) name, without machine code: every kernel of it
    /// loads through the JIT.
    pub const fn ptx_only(self, name: &'static str) -> Self {
        Ptx {
            name,
            source: self.source,
            cubins: &[],
        }
    }

    /// Whether this is a pack of per-kernel modules (else it loads as one module).
    pub fn is_pack(&self) -> bool {
        match self.source {
            Source::Archive(_) => true,
            Source::Text(t) => t.starts_with(&MARKER[1..]) || t.contains(MARKER),
        }
    }

    /// The PTX text of a plain module or text pack (`None` for a kernel archive).
    pub fn text(&self) -> Option<&'static str> {
        match self.source {
            Source::Text(t) => Some(t),
            Source::Archive(_) => None,
        }
    }

    /// The kernel entry points, in source order.
    pub fn kernel_names(&self) -> Vec<&'static str> {
        self.index().order.clone()
    }

    /// The standalone PTX module of `kernel` (packs only; decompressed from an archive on
    /// first use): `Ok(None)` when there is no such kernel, [`Error::PtxLoad`] when the
    /// archive is damaged.
    ///
    /// ```
    /// let ptx = gpu_core::Ptx::new("t/pack", "//@entry k\n.version 8.0\n");
    /// assert_eq!(ptx.kernel_ptx("k").unwrap(), Some(".version 8.0\n"));
    /// ```
    pub fn kernel_ptx(&self, kernel: &str) -> crate::Result<Option<&'static str>> {
        self.index()
            .section(kernel)
            .map_err(|log| crate::Error::PtxLoad {
                module: format!("{}:{kernel}", self.name),
                error: "unreadable PTX archive".into(),
                log,
            })
    }

    /// The architectures (e.g. `[80, 90]`) whose cubin of `kernel` was built from this very
    /// PTX, so GPUs of those architectures load it without the JIT. Unreadable archives count
    /// as none.
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
            ptx: match self.source {
                Source::Text(t) => t.len(),
                Source::Archive(a) => a.len(),
            },
            cubins: self.cubins.iter().map(|c| (c.arch, c.pack.len())).collect(),
        }
    }

    /// The parsed index of this PTX and its cubins, built once per process.
    pub(crate) fn index(&self) -> Arc<PackIndex> {
        type Key = (usize, usize, usize);
        static INDEXES: OnceLock<Mutex<HashMap<Key, Arc<PackIndex>>>> = OnceLock::new();
        let (ptr, len) = match self.source {
            Source::Text(t) => (t.as_ptr() as usize, t.len()),
            Source::Archive(a) => (a.as_ptr() as usize, a.len()),
        };
        let key = (ptr, len, self.cubins.as_ptr() as usize);
        let mut map = INDEXES
            .get_or_init(Default::default)
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        map.entry(key)
            .or_insert_with(|| Arc::new(PackIndex::parse(self)))
            .clone()
    }
}

/// The per-kernel PTX modules of a pack.
#[derive(Debug)]
enum Sections {
    /// A plain module: no sections.
    None,
    /// A text pack: entry → its module.
    Text(HashMap<&'static str, &'static str>),
    /// A kernel archive, or why it could not be read.
    Archive(Result<Archive, String>),
}

/// Where each kernel's images lie inside a [`Ptx`].
#[derive(Debug)]
pub(crate) struct PackIndex {
    /// Entry points in source order.
    pub(crate) order: Vec<&'static str>,
    sections: Sections,
    /// Per architecture: the cubin archive, or why it could not be read.
    cubins: Vec<(u32, Result<Archive, String>)>,
}

impl PackIndex {
    fn parse(ptx: &Ptx) -> PackIndex {
        let mut order = Vec::new();
        let sections = match ptx.source {
            Source::Archive(bytes) => {
                let archive = Archive::parse(bytes).and_then(|a| match a.kind {
                    KIND_PTX => Ok(a),
                    k => Err(format!("holds kind {k}, expected PTX ({KIND_PTX})")),
                });
                if let Ok(a) = &archive {
                    order = a.order.clone();
                }
                Sections::Archive(archive)
            }
            Source::Text(text) if ptx.is_pack() => {
                let mut sections = HashMap::new();
                // Positions of each marker's leading newline (a pack may also start with one).
                let mut starts: Vec<usize> =
                    text.match_indices(MARKER).map(|(i, _)| i + 1).collect();
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
                Sections::Text(sections)
            }
            Source::Text(text) => {
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
                Sections::None
            }
        };
        let cubins = ptx
            .cubins
            .iter()
            .map(|c| {
                let archive = Archive::parse(c.pack).and_then(|a| {
                    if a.kind != KIND_CUBINS {
                        Err(format!(
                            "holds kind {}, expected cubins ({KIND_CUBINS})",
                            a.kind
                        ))
                    } else if a.arch != c.arch {
                        Err(format!(
                            "holds sm_{} code, declared as sm_{}",
                            a.arch, c.arch
                        ))
                    } else {
                        Ok(a)
                    }
                });
                (c.arch, archive)
            })
            .collect();
        PackIndex {
            order,
            sections,
            cubins,
        }
    }

    /// The standalone PTX module of `entry` (packs only): `Ok(None)` when the pack has no such
    /// kernel, an error when its archive cannot be read.
    pub(crate) fn section(&self, entry: &str) -> Result<Option<&'static str>, String> {
        match &self.sections {
            Sections::None => Ok(None),
            Sections::Text(map) => Ok(map.get(entry).copied()),
            Sections::Archive(archive) => {
                let archive = archive
                    .as_ref()
                    .map_err(|e| format!("the PTX archive is unreadable: {e}"))?;
                let Some(e) = archive.entry(entry) else {
                    return Ok(None);
                };
                let bytes = archive
                    .bytes(e)
                    .map_err(|err| format!("the PTX archive is damaged: {err}"))?;
                if fnv1a64(bytes) != e.hash {
                    return Err(format!("the PTX of `{entry}` does not match its hash"));
                }
                std::str::from_utf8(bytes)
                    .map(Some)
                    .map_err(|_| format!("the PTX of `{entry}` is not UTF-8"))
            }
        }
    }

    /// Hash of `entry`'s PTX section, without decompressing an archive.
    fn section_hash(&self, entry: &str) -> Option<u64> {
        match &self.sections {
            Sections::None => None,
            Sections::Text(map) => map.get(entry).map(|s| fnv1a64(s.as_bytes())),
            Sections::Archive(a) => a.as_ref().ok()?.entry(entry).map(|e| e.hash),
        }
    }

    /// The cubin to load for `entry` on a GPU of compute capability `cc`: from the newest
    /// archive of the same major version and a minor version not above the GPU's (SASS runs
    /// only there), and only if it was built from this very PTX section. `Ok(None)` means
    /// "use the PTX"; an unreadable archive is an error naming it.
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
        let Some((arch, archive)) = best else {
            return Ok(None);
        };
        let archive = archive
            .as_ref()
            .map_err(|e| format!("the sm_{arch} cubin archive is unreadable: {e}"))?;
        let Some(e) = archive.entry(entry) else {
            return Ok(None);
        };
        if self.section_hash(entry) != Some(e.hash) {
            return Ok(None);
        }
        let cubin = archive
            .bytes(e)
            .map_err(|err| format!("the sm_{arch} cubin archive is damaged: {err}"))?;
        Ok(Some((*arch, cubin)))
    }
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
    use crate::kernel_archive::stored_archive;

    const PACK: &str = "// header\n//@entry a\n.version 8.0\nA\n//@entry b_2\n.version 8.0\nB\n";
    const A: &[u8] = b".version 8.0\nA\n";
    const B: &[u8] = b".version 8.0\nB\n";

    fn cubins(arch: u32, items: &[(&str, u64, &[u8])]) -> &'static [u8] {
        stored_archive(KIND_CUBINS, arch, items).leak()
    }

    fn ptx_archive() -> &'static [u8] {
        stored_archive(KIND_PTX, 0, &[("a", fnv1a64(A), A), ("b_2", fnv1a64(B), B)]).leak()
    }

    #[test]
    fn pack_sections_are_found_in_order() {
        for ptx in [
            Ptx::new("t/pack", PACK),
            Ptx::archive("t/archive", ptx_archive()),
        ] {
            assert!(ptx.is_pack());
            let idx = PackIndex::parse(&ptx);
            assert_eq!(idx.order, vec!["a", "b_2"]);
            assert_eq!(idx.section("a"), Ok(Some(".version 8.0\nA\n")));
            assert_eq!(idx.section("b_2"), Ok(Some(".version 8.0\nB\n")));
            assert_eq!(idx.section("c"), Ok(None));
        }
        assert_eq!(Ptx::new("t/pack", PACK).text(), Some(PACK));
        assert_eq!(Ptx::archive("t/archive", ptx_archive()).text(), None);
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
        let a = fnv1a64(A);
        let sm80 = cubins(80, &[("a", a, b"code80a"), ("b_2", 1, b"stale")]);
        let sm90 = cubins(90, &[("a", a, b"code90a!!")]);
        let archives = vec![Cubins::new(80, sm80), Cubins::new(90, sm90)].leak();
        for ptx in [
            Ptx::new("t/cubins", PACK),
            Ptx::archive("t/c", ptx_archive()),
        ] {
            let ptx = ptx.with_cubins(archives);
            let idx = PackIndex::parse(&ptx);
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
            assert_eq!(ptx.cubin_archs("a"), vec![80, 90]);
            assert_eq!(ptx.cubin_archs("b_2"), Vec::<u32>::new());
            assert_eq!(
                ptx.embedded_bytes().cubins,
                vec![(80, sm80.len()), (90, sm90.len())]
            );
            // The PTX-only twin never offers cubins.
            let twin = ptx.ptx_only("t/twin");
            assert!(twin.cubin_archs("a").is_empty());
            assert_eq!(twin.kernel_names(), vec!["a", "b_2"]);
        }
    }

    #[test]
    fn corrupt_archives_are_reported() {
        let mut bad = stored_archive(KIND_CUBINS, 90, &[("a", 0, b"x")]);
        bad.truncate(30);
        let archives = vec![Cubins::new(90, bad.leak()), Cubins::new(80, b"junk")].leak();
        let idx = PackIndex::parse(&Ptx::new("t/bad", PACK).with_cubins(archives));
        assert!(idx
            .cubin_for("a", (9, 0))
            .unwrap_err()
            .contains("truncated"));
        assert!(idx
            .cubin_for("a", (8, 6))
            .unwrap_err()
            .contains("bad magic"));
        let wrong_arch = vec![Cubins::new(90, cubins(80, &[]))].leak();
        let idx = PackIndex::parse(&Ptx::new("t/arch", PACK).with_cubins(wrong_arch));
        assert!(idx.cubin_for("a", (9, 0)).unwrap_err().contains("sm_80"));
        // A cubin archive given as PTX, and a PTX section that does not match its hash.
        let as_ptx = PackIndex::parse(&Ptx::archive("t/kind", cubins(90, &[("a", 0, A)])));
        assert!(as_ptx.section("a").unwrap_err().contains("kind"));
        let lying = stored_archive(KIND_PTX, 0, &[("a", 5, A)]).leak();
        let idx = PackIndex::parse(&Ptx::archive("t/hash", lying));
        assert!(idx.section("a").unwrap_err().contains("hash"));
    }
}
