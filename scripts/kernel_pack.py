"""kernel_pack.py — split one NVRTC PTX module into standalone per-kernel modules, and store
those and per-kernel cubins in compressed kernel archives. Used by scripts/ptx.py; stdlib only
(the zstandard module is passed in by the caller).

Why: the driver JIT-compiles a whole PTX module when it is loaded, so a crate embedding one
module of 450 kernels paid for all of them on its first call (issue 21). Each kernel's section
of a *PTX pack* is a complete module (the preamble, the module-scope declarations that kernel
refers to, its entry), so gpu-core loads and compiles only the kernels that are used.

PTX pack (text): the provenance comment lines, then for every `.entry` in source order

    //@entry <name>
    .version ... / .target ... / .address_size ...
    <the module-scope declarations and .func definitions it needs, in source order>
    <the entry>

Kernel archive (binary, little-endian): how both are committed and embedded. The entries
(PTX sections, or cubins) are grouped in source order into frames of about FRAME_BYTES, each
compressed with zstd on its own: a program decompresses only the frames of the kernels it
loads, while neighbouring kernels (the same template for another type or operator) compress
against each other (xz-like ratios; gzip, which crates.io applies, sees 32 KiB at a time).

    b"GPKARCH1" | u32 kind (0 PTX, 1 cubins) | u32 arch (0, or e.g. 90) | u32 frames
              | u32 entries | u32 note length | the note (UTF-8: provenance comment lines)
    frames  × (u64 offset | u64 fnv1a64 of the raw frame | u32 stored length
               | u32 raw length | u32 codec (0 stored, 1 zstd) | u32 0)
    entries × (u16 name length | name (UTF-8) | u64 hash | u32 frame | u32 offset | u32 length)
    the frames, each at its offset

An entry's hash is fnv1a64 of its kernel's PTX section (for a cubin: the section it was
compiled from), so a loader ties each cubin to the PTX it would otherwise JIT without
decompressing either.
"""

from __future__ import annotations

import re
import struct

MARKER = "//@entry "
ARCHIVE_MAGIC = b"GPKARCH1"
KIND_PTX, KIND_CUBINS = 0, 1
CODEC_STORED, CODEC_ZSTD = 0, 1
# Raw bytes per frame: a first call decompresses one frame (about 0.6 ms per 256 KiB); larger
# frames compress better (scan.ptx: 1.18 MB at 256 KiB, 0.87 MB at 1 MiB, 2.38 MB gzipped).
FRAME_BYTES = 256 << 10
ZSTD_LEVEL = 19

_IDENT_RE = re.compile(r"[A-Za-z_$%][A-Za-z0-9_$]*")
_ENTRY_RE = re.compile(r"\.entry\s+([A-Za-z_$][A-Za-z0-9_$]*)")
_FUNC_RE = re.compile(r"\.func\s+(?:\([^)]*\)\s*)?([A-Za-z_$][A-Za-z0-9_$]*)")
_PREAMBLE = (".version", ".target", ".address_size")


class Statement:
    """One module-scope statement of a PTX module."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.kind, self.name = _classify(text)
        # Identifiers it mentions (its body, parameters and initialiser).
        self.refs = set(_IDENT_RE.findall(text))


def _classify(text: str) -> tuple[str, str]:
    head = text.lstrip()
    if head.startswith(_PREAMBLE):
        return "preamble", ""
    m = _ENTRY_RE.search(text)
    if m and "{" in text:
        return "entry", m.group(1)
    m = _FUNC_RE.search(text)
    if m:
        return "func", m.group(1)
    # A variable: `[.visible|.extern|.weak] .global|.const|.shared ... name[dims] [= init];`
    decl = text.split("=", 1)[0].strip().rstrip(";").strip()
    decl = re.sub(r"\[[^\]]*\]", "", decl)
    name = decl.split()[-1] if decl.split() else ""
    return "variable", name


def statements(ptx: str) -> list[Statement]:
    """Splits PTX text into module-scope statements; top-level comment lines are dropped."""
    out: list[Statement] = []
    cur: list[str] = []
    braces = parens = 0
    for line in ptx.splitlines():
        stripped = line.strip()
        if not cur and (not stripped or stripped.startswith("//")):
            continue
        cur.append(line)
        code = line.split("//", 1)[0]
        braces += code.count("{") - code.count("}")
        parens += code.count("(") - code.count(")")
        if braces < 0 or parens < 0:
            raise ValueError(f"unbalanced PTX near: {line!r}")
        ends_block = braces == 0 and "}" in code and any("{" in c for c in cur)
        ends_decl = braces == 0 and parens == 0 and code.rstrip().endswith(";") and not any(
            "{" in c.split("//", 1)[0] for c in cur)
        if stripped.startswith(_PREAMBLE) and braces == 0 and parens == 0:
            ends_decl = True
        if ends_block or ends_decl:
            out.append(Statement("\n".join(cur)))
            cur = []
    if cur:
        raise ValueError("PTX ends inside a statement: " + "\n".join(cur)[:200])
    return out


def split(ptx: str) -> list[tuple[str, str]]:
    """[(entry name, standalone PTX module)] for every `.entry`, in source order."""
    stmts = statements(ptx)
    preamble = [s.text for s in stmts if s.kind == "preamble"]
    if len(preamble) != 3:
        raise ValueError(f"expected .version/.target/.address_size, found {preamble}")
    by_name = {s.name: s for s in stmts if s.kind in ("variable", "func") and s.name}
    order = {id(s): i for i, s in enumerate(stmts)}
    modules = []
    for entry in (s for s in stmts if s.kind == "entry"):
        needed: dict[int, Statement] = {}
        stack = [entry]
        while stack:
            s = stack.pop()
            for ref in s.refs:
                d = by_name.get(ref)
                if d is not None and id(d) not in needed and d is not s:
                    needed[id(d)] = d
                    stack.append(d)
        decls = sorted(needed.values(), key=lambda d: order[id(d)])
        body = "\n".join(preamble + [d.text for d in decls] + [entry.text])
        modules.append((entry.name, body + "\n"))
    names = [n for n, _ in modules]
    if len(set(names)) != len(names):
        raise ValueError("duplicate entry names")
    return modules


def ptx_pack(header: str, nvvm_comments: str, modules: list[tuple[str, str]]) -> str:
    """The PTX pack text: provenance header, NVVM's banner comments, the sections."""
    parts = [header, nvvm_comments]
    for name, text in modules:
        parts.append(f"{MARKER}{name}\n{text}")
    return "".join(parts)


def nvvm_banner(ptx: str) -> str:
    """The comment lines NVRTC puts before `.version` (compiler build and version)."""
    lines = []
    for line in ptx.splitlines():
        if line.startswith(".version"):
            break
        lines.append(line)
    return "\n".join(lines).rstrip("\n") + "\n\n"


def fnv1a64(data: bytes) -> int:
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def archive(kind: int, arch: int, note: str, entries: list[tuple[str, int, bytes]],
            zstd=None, frame_bytes: int = FRAME_BYTES) -> bytes:
    """A kernel archive of [(entry name, hash, raw bytes)] in the given order. `zstd` is the
    `zstandard` module (None stores the frames uncompressed)."""
    frames: list[bytes] = []
    where: list[tuple[int, int]] = []
    cur = bytearray()
    for _, _, raw in entries:
        if cur and len(cur) + len(raw) > frame_bytes:
            frames.append(bytes(cur))
            cur = bytearray()
        where.append((len(frames), len(cur)))
        cur += raw
    if cur:
        frames.append(bytes(cur))
    codec = CODEC_STORED if zstd is None else CODEC_ZSTD
    if zstd is None:
        stored = frames
    else:
        c = zstd.ZstdCompressor(level=ZSTD_LEVEL, write_checksum=False, write_content_size=True)
        stored = [c.compress(f) for f in frames]
    note_b = note.encode()
    head = ARCHIVE_MAGIC + struct.pack("<IIIII", kind, arch, len(frames), len(entries), len(note_b))
    head += note_b
    table = bytearray()
    for (name, h, raw), (frame, offset) in zip(entries, where):
        n = name.encode()
        table += struct.pack("<H", len(n)) + n + struct.pack("<QIII", h, frame, offset, len(raw))
    pos = len(head) + 32 * len(frames) + len(table)
    ftable = bytearray()
    for raw, st in zip(frames, stored):
        ftable += struct.pack("<QQIIII", pos, fnv1a64(raw), len(st), len(raw), codec, 0)
        pos += len(st)
    return bytes(head + ftable + table) + b"".join(stored)


def _tables(data: bytes) -> tuple[int, int, str, list[tuple], list[tuple]]:
    """(kind, arch, note, frames, entries) of a kernel archive's header: frames as (offset,
    hash, stored length, raw length, codec), entries as (name, hash, frame, offset, length);
    raises ValueError."""
    if data[:8] != ARCHIVE_MAGIC:
        raise ValueError("not a kernel archive (bad magic)")
    kind, arch, nframes, nentries, note_len = struct.unpack_from("<IIIII", data, 8)
    at = 28
    note = data[at:at + note_len].decode()
    at += note_len
    frames = []
    for _ in range(nframes):
        frames.append(struct.unpack_from("<QQIIII", data, at)[:5])
        at += 32
    entries = []
    for _ in range(nentries):
        (n,) = struct.unpack_from("<H", data, at)
        name = data[at + 2:at + 2 + n].decode()
        at += 2 + n
        entries.append((name,) + struct.unpack_from("<QIII", data, at))
        at += 20
    return kind, arch, note, frames, entries


def read_archive(data: bytes, zstd=None) -> tuple[int, int, str, list[tuple[str, int, bytes]]]:
    """(kind, arch, note, [(name, hash, raw bytes)]) of a kernel archive; raises ValueError."""
    kind, arch, note, frames, table = _tables(data)
    raws = []
    for offset, h, stored_len, raw_len, codec in frames:
        st = data[offset:offset + stored_len]
        if codec == CODEC_STORED:
            raw = st
        elif codec == CODEC_ZSTD:
            if zstd is None:
                raise ValueError("a zstd frame, and no zstandard module given")
            raw = zstd.ZstdDecompressor().decompress(st, max_output_size=raw_len)
        else:
            raise ValueError(f"unknown codec {codec}")
        if len(raw) != raw_len or fnv1a64(raw) != h:
            raise ValueError(f"frame at {offset} is corrupt")
        raws.append(raw)
    entries = [(name, h, raws[frame][offset:offset + length])
               for name, h, frame, offset, length in table]
    return kind, arch, note, entries


def frame_layout(data: bytes) -> list[tuple[int, int]]:
    """(frame, offset) of each entry of a kernel archive, in order: where its frames were cut
    (two archives of the same kernels packed with different frame sizes differ only here)."""
    return [(frame, offset) for _, _, frame, offset, _ in _tables(data)[4]]


def archive_text(data: bytes, zstd=None) -> str:
    """A readable view of an archive: the PTX pack text, or one line per cubin."""
    kind, arch, note, entries = read_archive(data, zstd)
    if kind == KIND_PTX:
        return note + "".join(f"{MARKER}{name}\n{raw.decode()}" for name, _, raw in entries)
    lines = [f"// sm_{arch} cubins: {len(entries)}"]
    lines += [f"{name} ptx-fnv={h:016x} bytes={len(raw)}" for name, h, raw in entries]
    return "\n".join(lines) + "\n"
