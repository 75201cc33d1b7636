#!/usr/bin/env python3
"""sass.py — read a committed kernel's machine code without a GPU.

Why: the cubin archives (`<name>.sm_80.kpack`, `<name>.sm_90.kpack`) hold what the GPU runs;
reading it (instruction mix, what a loop compiled to, where 64-bit division or spills hide)
needs no device time. nvdisasm comes from PyPI (`nvidia-cuda-nvdisasm`, pinned below), pip-
installed into the git-ignored .tools/nvdisasm on first use, like ptx.py's tools.

Usage:  scripts/sass.py ARCHIVE                 list the archive's kernels
        scripts/sass.py ARCHIVE KERNEL          print KERNEL's SASS
        scripts/sass.py ARCHIVE KERNEL --mix    its opcodes by count (every path, cold ones too)
e.g.    scripts/sass.py crates/gpu-conv1d/src/ptx/conv1d.sm_90.kpack conv1d_auto_wide_w31_f32 --mix
"""

from __future__ import annotations

import argparse
import collections
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_pack  # noqa: E402
import ptx  # noqa: E402

NVDISASM_PKG, NVDISASM_VERSION = "nvidia-cuda-nvdisasm", "13.5.37"
NVDISASM_TOOLS = ptx.ROOT / ".tools" / "nvdisasm"


def nvdisasm() -> Path:
    """The pinned nvdisasm binary (installed into .tools/nvdisasm on first use)."""
    marker = NVDISASM_TOOLS / f"{NVDISASM_PKG.replace('-', '_')}-{NVDISASM_VERSION}.dist-info"
    if not marker.is_dir():
        ptx.pip_install(NVDISASM_PKG, NVDISASM_VERSION, NVDISASM_TOOLS)
    found = sorted(NVDISASM_TOOLS.glob("nvidia/*/bin/nvdisasm"))
    if not found:
        ptx.die(f"no nvdisasm under {NVDISASM_TOOLS}")
    found[0].chmod(0o755)
    return found[0]


def disassemble(cubin: bytes) -> str:
    """nvdisasm's listing of one kernel's cubin (dies on failure)."""
    with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
        f.write(cubin)
        f.flush()
        r = subprocess.run([str(nvdisasm()), "-c", f.name], capture_output=True, text=True)
    if r.returncode != 0:
        ptx.die(f"nvdisasm failed: {r.stderr.strip()}")
    return r.stdout


# An instruction line: /*offset*/ [@predicate] OPCODE.modifiers ...
INSTRUCTION = re.compile(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P[0-9T]+\s+)?([A-Z][A-Z0-9_]*)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("archive", type=Path)
    ap.add_argument("kernel", nargs="?")
    ap.add_argument("--mix", action="store_true", help="opcode counts instead of the listing")
    a = ap.parse_args()
    kind, arch, _, entries = kernel_pack.read_archive(a.archive.read_bytes(), ptx.zstd())
    if kind != kernel_pack.KIND_CUBINS:
        ptx.die(f"{a.archive} holds PTX; pass a <name>.sm_NN.kpack")
    if a.kernel is None:
        for name, _, raw in entries:
            print(f"{name}\t{len(raw)} bytes")
        return 0
    raw = next((r for n, _, r in entries if n == a.kernel), None)
    if raw is None:
        ptx.die(f"no kernel {a.kernel} in {a.archive}")
    listing = disassemble(raw)
    if not a.mix:
        sys.stdout.write(listing)
        return 0
    mix = collections.Counter(m.group(1) for m in map(INSTRUCTION.match, listing.splitlines()) if m)
    print(f"{a.kernel} (sm_{arch}): {sum(mix.values())} instructions")
    for op, n in mix.most_common():
        print(f"{n:7d}  {op}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
