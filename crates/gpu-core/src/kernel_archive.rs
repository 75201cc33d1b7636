//! Kernel archives: the compressed form in which `scripts/ptx.py` commits, and the crates
//! embed, their kernels' PTX sections and cubins (format in `scripts/kernel_pack.py`).
//!
//! Why compressed: crates.io refuses packages over 10 MB, and gzip (which it applies) sees
//! only 32 KiB at a time, so hundreds of kernels built from the same templates barely shrank
//! (gpu-scan: 9.8 MB). zstd over frames of about 256 KiB finds that redundancy (about 10×),
//! and a first call decompresses only the frame holding its kernel (well under a millisecond).
//!
//! Decompressed frames are kept for the life of the process (each at most once): archives are
//! embedded statics, and their index lives in a process-wide cache.

use std::collections::HashMap;
use std::io::Read;
use std::sync::OnceLock;

use crate::kernel_pack::fnv1a64;

const MAGIC: &[u8; 8] = b"GPKARCH1";
/// Archive of standalone PTX modules, one per kernel.
pub(crate) const KIND_PTX: u32 = 0;
/// Archive of cubins for one SASS architecture.
pub(crate) const KIND_CUBINS: u32 = 1;
const CODEC_STORED: u32 = 0;
const CODEC_ZSTD: u32 = 1;

/// Where one kernel's bytes lie, and the hash that ties a cubin to its PTX.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Entry {
    /// fnv1a64 of the kernel's PTX section (for a cubin: the section it was compiled from).
    pub(crate) hash: u64,
    frame: usize,
    offset: usize,
    len: usize,
}

#[derive(Debug)]
struct Frame {
    stored: &'static [u8],
    raw_len: usize,
    raw_hash: u64,
    codec: u32,
    raw: OnceLock<Result<&'static [u8], String>>,
}

/// A parsed kernel archive: its table read, its frames decompressed on first use.
#[derive(Debug)]
pub(crate) struct Archive {
    pub(crate) kind: u32,
    pub(crate) arch: u32,
    /// Entry names in archive (source) order.
    pub(crate) order: Vec<&'static str>,
    entries: HashMap<&'static str, Entry>,
    frames: Vec<Frame>,
}

/// Little-endian reader over a static byte slice that reports where it ran out.
struct Cursor {
    bytes: &'static [u8],
    at: usize,
}

impl Cursor {
    fn take(&mut self, n: usize) -> Result<&'static [u8], String> {
        let s = self
            .at
            .checked_add(n)
            .and_then(|end| self.bytes.get(self.at..end))
            .ok_or_else(|| format!("truncated at byte {}", self.at))?;
        self.at += n;
        Ok(s)
    }
    fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(
            self.take(2)?.try_into().expect("2 bytes"),
        ))
    }
    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(
            self.take(4)?.try_into().expect("4 bytes"),
        ))
    }
    fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(
            self.take(8)?.try_into().expect("8 bytes"),
        ))
    }
    fn usize(&mut self) -> Result<usize, String> {
        let v = self.u32()?;
        usize::try_from(v).map_err(|_| format!("{v} does not fit in usize"))
    }
}

impl Archive {
    /// Reads the archive's table; no frame is decompressed yet.
    pub(crate) fn parse(bytes: &'static [u8]) -> Result<Archive, String> {
        let mut c = Cursor { bytes, at: 0 };
        if c.take(8).ok() != Some(&MAGIC[..]) {
            return Err("bad magic (not a gpu-prims kernel archive)".into());
        }
        let (kind, arch) = (c.u32()?, c.u32()?);
        let (nframes, nentries, note_len) = (c.usize()?, c.usize()?, c.usize()?);
        c.take(note_len)?;
        let mut frames = Vec::with_capacity(nframes.min(bytes.len() / 32));
        for _ in 0..nframes {
            let offset = c.u64()?;
            let raw_hash = c.u64()?;
            let (stored_len, raw_len, codec) = (c.usize()?, c.usize()?, c.u32()?);
            c.u32()?;
            let stored = usize::try_from(offset)
                .ok()
                .and_then(|o| bytes.get(o..o.checked_add(stored_len)?))
                .ok_or_else(|| format!("a frame at byte {offset} lies outside the archive"))?;
            if codec != CODEC_STORED && codec != CODEC_ZSTD {
                return Err(format!("unknown codec {codec}"));
            }
            frames.push(Frame {
                stored,
                raw_len,
                raw_hash,
                codec,
                raw: OnceLock::new(),
            });
        }
        let mut order = Vec::with_capacity(nentries.min(bytes.len() / 22));
        let mut entries = HashMap::with_capacity(order.capacity());
        for _ in 0..nentries {
            let n = c.u16()? as usize;
            let name = std::str::from_utf8(c.take(n)?)
                .map_err(|_| format!("bad kernel name before byte {}", c.at))?;
            let hash = c.u64()?;
            let (frame, offset, len) = (c.usize()?, c.usize()?, c.usize()?);
            let inside = frames
                .get(frame)
                .and_then(|f| offset.checked_add(len).map(|end| end <= f.raw_len))
                .unwrap_or(false);
            if !inside {
                return Err(format!("kernel `{name}` lies outside its frame"));
            }
            let entry = Entry {
                hash,
                frame,
                offset,
                len,
            };
            if entries.insert(name, entry).is_some() {
                return Err(format!("kernel `{name}` appears twice"));
            }
            order.push(name);
        }
        Ok(Archive {
            kind,
            arch,
            order,
            entries,
            frames,
        })
    }

    /// The table entry of kernel `name`.
    pub(crate) fn entry(&self, name: &str) -> Option<Entry> {
        self.entries.get(name).copied()
    }

    /// The bytes of `entry`, decompressing its frame on first use.
    pub(crate) fn bytes(&self, entry: Entry) -> Result<&'static [u8], String> {
        let frame = &self.frames[entry.frame];
        let raw = frame
            .raw
            .get_or_init(|| decode(frame).map(|v| &*Box::leak(v.into_boxed_slice())))
            .as_ref()
            .map_err(Clone::clone)?;
        Ok(&raw[entry.offset..entry.offset + entry.len])
    }
}

/// One frame's raw bytes, checked against the length and hash its table gives.
fn decode(frame: &Frame) -> Result<Vec<u8>, String> {
    let raw = match frame.codec {
        CODEC_ZSTD => {
            let mut out = Vec::with_capacity(frame.raw_len);
            let mut decoder = ruzstd::StreamingDecoder::new(frame.stored)
                .map_err(|e| format!("zstd frame: {e}"))?;
            // One byte past the declared length is enough to notice a frame that is too long.
            (&mut decoder)
                .take(frame.raw_len as u64 + 1)
                .read_to_end(&mut out)
                .map_err(|e| format!("zstd frame: {e}"))?;
            out
        }
        _ => frame.stored.to_vec(),
    };
    if raw.len() != frame.raw_len || fnv1a64(&raw) != frame.raw_hash {
        return Err(format!(
            "a frame decompressed to {} bytes that do not match its table ({} bytes)",
            raw.len(),
            frame.raw_len
        ));
    }
    Ok(raw)
}

/// An archive as `scripts/kernel_pack.py` writes it, frames stored uncompressed: for tests.
#[cfg(test)]
pub(crate) fn stored_archive(kind: u32, arch: u32, entries: &[(&str, u64, &[u8])]) -> Vec<u8> {
    let frame: Vec<u8> = entries.iter().flat_map(|e| e.2.iter().copied()).collect();
    let note = b"// test\n";
    let mut head = MAGIC.to_vec();
    for v in [kind, arch, 1, entries.len() as u32, note.len() as u32] {
        head.extend(v.to_le_bytes());
    }
    head.extend(note);
    let mut table = Vec::new();
    let mut offset = 0u32;
    for (name, hash, raw) in entries {
        table.extend((name.len() as u16).to_le_bytes());
        table.extend(name.as_bytes());
        table.extend(hash.to_le_bytes());
        for v in [0u32, offset, raw.len() as u32] {
            table.extend(v.to_le_bytes());
        }
        offset += raw.len() as u32;
    }
    let at = (head.len() + 32 + table.len()) as u64;
    head.extend(at.to_le_bytes());
    head.extend(fnv1a64(&frame).to_le_bytes());
    for v in [frame.len() as u32, frame.len() as u32, CODEC_STORED, 0] {
        head.extend(v.to_le_bytes());
    }
    head.extend(table);
    head.extend(frame);
    head
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_archives_read_back() {
        let a = stored_archive(KIND_CUBINS, 90, &[("k1", 7, b"abc"), ("k2", 9, b"")]).leak();
        let arch = Archive::parse(a).unwrap();
        assert_eq!((arch.kind, arch.arch), (KIND_CUBINS, 90));
        assert_eq!(arch.order, vec!["k1", "k2"]);
        let e = arch.entry("k1").unwrap();
        assert_eq!(e.hash, 7);
        assert_eq!(arch.bytes(e).unwrap(), b"abc");
        assert_eq!(arch.bytes(arch.entry("k2").unwrap()).unwrap(), b"");
        assert!(arch.entry("k3").is_none());
    }

    #[test]
    fn damaged_archives_are_errors_not_panics() {
        let good = stored_archive(KIND_PTX, 0, &[("k1", 7, b"abcdef")]);
        // Every truncation fails to parse cleanly.
        for n in 0..good.len() {
            let cut = good[..n].to_vec().leak();
            assert!(Archive::parse(cut).is_err(), "truncated to {n}");
        }
        // A flipped byte in the frame is caught by the frame's hash.
        let mut bad = good.clone();
        *bad.last_mut().unwrap() ^= 1;
        let arch = Archive::parse(bad.leak()).unwrap();
        let err = arch.bytes(arch.entry("k1").unwrap()).unwrap_err();
        assert!(err.contains("do not match"), "{err}");
        // A zstd frame that is not zstd.
        let mut junk = good.clone();
        let codec_at = 8 + 20 + 8 + 8 + 8 + 4 + 4;
        junk[codec_at..codec_at + 4].copy_from_slice(&CODEC_ZSTD.to_le_bytes());
        let arch = Archive::parse(junk.leak()).unwrap();
        assert!(arch.bytes(arch.entry("k1").unwrap()).is_err());
        assert!(Archive::parse(b"GPCUBINS\0\0\0\0")
            .unwrap_err()
            .contains("magic"));
    }
}
