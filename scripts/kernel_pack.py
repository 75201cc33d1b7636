"""kernel_pack.py — split one NVRTC PTX module into standalone per-kernel modules, and pack
per-kernel cubins into one binary file. Used by scripts/ptx.py; stdlib only.

Why: the driver JIT-compiles a whole PTX module when it is loaded, so a crate embedding one
module of 450 kernels paid for all of them on its first call (issue 21). Each kernel's section
of a *PTX pack* is a complete module (the preamble, the module-scope declarations that kernel
refers to, its entry), so gpu-core loads and compiles only the kernels that are used.

PTX pack (text): the provenance comment lines, then for every `.entry` in source order

    //@entry <name>
    .version ... / .target ... / .address_size ...
    <the module-scope declarations and .func definitions it needs, in source order>
    <the entry>

Cubin pack (binary, little-endian), one per SASS architecture:

    b"GPCUBINS" | u32 version (1) | u32 arch (e.g. 90) | u32 count | u32 0
    count records: u16 name length | name (UTF-8) | u64 fnv1a64 of the kernel's PTX section
                   | u64 offset | u64 length
    the cubins, each at an offset that is a multiple of 8

The hash ties each cubin to the PTX section it was compiled from: gpu-core uses a cubin only
when its hash matches the section it would otherwise JIT (so stale cubins can never run).
"""

from __future__ import annotations

import re
import struct

MARKER = "//@entry "
CUBIN_MAGIC = b"GPCUBINS"
CUBIN_VERSION = 1

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


def cubin_pack(arch: int, cubins: list[tuple[str, int, bytes]]) -> bytes:
    """Packs [(entry name, fnv1a64 of its PTX section, cubin)] for `sm_<arch>`."""
    table = bytearray()
    for name, _, _ in cubins:
        n = name.encode()
        table += struct.pack("<H", len(n)) + n + b"\0" * 24  # hash, offset, len: patched below
    head = CUBIN_MAGIC + struct.pack("<IIII", CUBIN_VERSION, arch, len(cubins), 0)
    pos = _align8(len(head) + len(table))
    blobs = bytearray()
    t = 0
    for name, h, blob in cubins:
        t += 2 + len(name.encode())
        offset = pos + len(blobs)
        struct.pack_into("<QQQ", table, t, h, offset, len(blob))
        t += 24
        blobs += blob + b"\0" * (_align8(len(blob)) - len(blob))
    out = bytes(head + table)
    return out + b"\0" * (pos - len(out)) + bytes(blobs)


def _align8(n: int) -> int:
    return (n + 7) & ~7
