#!/usr/bin/env python3
"""ptx.py — the kernel build pipeline: compile kernels/*.cu to committed PTX with NVRTC.

Why: the crates embed PTX (include_str!) so that building them never needs a CUDA toolkit;
this script regenerates that PTX reproducibly on any machine (no GPU, no CUDA install) using
NVRTC 12.0.76 from PyPI (nvidia-cuda-nvrtc-cu12), installed with pip into the git-ignored
folder .tools/nvrtc on first use and loaded through ctypes. Stdlib only.

Mapping:  kernels/<name>.cu  ->  crates/gpu-<name>/src/ptx/<name>.ptx.kpack (crate dir must exist),
          compiled for compute_70 (loads on every GPU since Volta);
          kernels/<name>_sm<NN>.cu -> crates/gpu-<name>/src/ptx/<name>_sm<NN>.ptx.kpack, compiled for
          compute_<NN>: kernels that need newer instructions, loaded by the crate only on GPUs
          of compute capability NN/10 or later.
          Each .ptx.kpack is a *kernel archive* (scripts/kernel_pack.py) of one standalone PTX
          module per kernel, so the driver JIT-compiles only the kernels a program uses, in
          zstd-compressed frames (zstandard from PyPI, into .tools/zstd). Beside it,
          <name>.sm_<AA>.kpack holds every kernel's machine code for each SASS architecture AA
          in SASS_ARCHS that is at least the PTX's (ptxas 12.0.76, from PyPI's
          nvidia-cuda-nvcc-cu12, into .tools/nvcc): loaded instead of the PTX on GPUs of that
          architecture (sm_80 also serves sm_86/sm_89), so they need no JIT at all.
Options:  --gpu-architecture=compute_<NN> --std=c++17 --include-path=<abs kernels/include>
          -DGPU_PRIMS_NVRTC=1
Output:   a header of PTX comment lines (provenance + sha256 of the .cu and of every header it
          includes transitively from kernels/include), then NVRTC's PTX split by kernel.
          Byte-identical from run to run, cubins included.

Usage:  scripts/ptx.sh            compile all kernels, rewrite only the .ptx files that changed
        scripts/ptx.sh --check    compile into a temp dir and compare with the committed files;
                                  exit 1 on any stale/missing .ptx or an orphan .ptx with no .cu;
                                  a file that differs is compiled 3 more times, and reported as
                                  non-reproducible (not stale) when NVRTC's output varies
        scripts/ptx.sh --list     print the .cu -> .ptx mapping (needs no NVRTC)
        scripts/ptx.sh --dump F   print kernel archive F as text (the PTX pack, or its cubins)
"""

from __future__ import annotations

import argparse
import ctypes
import difflib
import hashlib
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import kernel_pack  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
KERNELS = ROOT / "kernels"
INCLUDE = KERNELS / "include"
CRATES = ROOT / "crates"
TOOLS = ROOT / ".tools" / "nvrtc"

NVRTC_PKG = "nvidia-cuda-nvrtc-cu12"
NVRTC_VERSION = "12.0.76"
ARCH = "compute_70"
NVRTC_LIB_DIR = TOOLS / "nvidia" / "cuda_nvrtc" / "lib"
NVRTC_DIST_INFO = TOOLS / f"nvidia_cuda_nvrtc_cu12-{NVRTC_VERSION}.dist-info"
PTXAS_PKG = "nvidia-cuda-nvcc-cu12"
PTXAS_TOOLS = ROOT / ".tools" / "nvcc"
PTXAS = PTXAS_TOOLS / "nvidia" / "cuda_nvcc" / "bin" / "ptxas"
# The archives' compressor: pinned, so the committed bytes are reproducible (--check compares
# the decompressed contents, so another zstd version would not fail it either).
ZSTD_PKG, ZSTD_VERSION = "zstandard", "0.25.0"
ZSTD_TOOLS = ROOT / ".tools" / "zstd"
# Machine code shipped beside the PTX: sm_80 (A100; runs on sm_86/sm_89 too) and sm_90
# (H100/H200). Every other GPU JIT-compiles the PTX of the kernels it uses.
SASS_ARCHS = (80, 90)

# kernels/<crate>_sm<NN>.cu compiles for compute_<NN>; <NN>a (e.g. sm90a: wgmma) for the
# architecture-specific compute_<NN>a, whose code runs on compute capability NN exactly.
ARCH_SUFFIX_RE = re.compile(r"^(?P<crate>[a-z0-9]+)_sm(?P<arch>[0-9]{2,3})(?P<specific>a?)$")
# Extra compiles `--check` makes of a file whose PTX differs from the committed one.
REPRO_TRIES = 3
INCLUDE_RE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]', re.MULTILINE)


def die(msg: str) -> "NoReturn":  # noqa: F821
    print(f"ptx.py: error: {msg}", file=sys.stderr)
    sys.exit(1)


def rel(p: Path) -> str:
    return p.resolve().relative_to(ROOT).as_posix()


# ----------------------------------------------------------------------------------------------
# Kernel discovery and mapping
# ----------------------------------------------------------------------------------------------

def kernel_sources() -> list[Path]:
    # PTX_ONLY=name,name (stems of kernels/*.cu): build only those (a quick local rebuild;
    # --check always takes every source).
    only = [x for x in os.environ.get("PTX_ONLY", "").split(",") if x]
    return sorted(p for p in KERNELS.glob("*.cu") if not only or p.stem in only)


def arch_for(cu: Path) -> str:
    m = ARCH_SUFFIX_RE.match(cu.stem)
    return f"compute_{m.group('arch')}{m.group('specific')}" if m else ARCH


def specific_suffix(cu: Path) -> str:
    """"a" for an architecture-specific source (its cubins are built for sm_<NN>a), else ""."""
    m = ARCH_SUFFIX_RE.match(cu.stem)
    return m.group("specific") if m else ""


def ptx_path_for(cu: Path) -> Path:
    name = cu.stem
    m = ARCH_SUFFIX_RE.match(name)
    crate = CRATES / f"gpu-{m.group('crate') if m else name}"
    if not crate.is_dir():
        die(f"{rel(cu)}: no crate directory {crate.relative_to(ROOT).as_posix()}/ "
            f"(kernels/<name>.cu maps to crates/gpu-<name>/src/ptx/<name>.ptx)")
    return crate / "src" / "ptx" / f"{name}.ptx.kpack"


def cubins_path_for(cu: Path, arch: int) -> Path:
    return ptx_path_for(cu).with_name(f"{cu.stem}.sm_{arch}.kpack")


def sass_archs_for(cu: Path) -> list[int]:
    ptx_arch = int(arch_for(cu).split("_")[1].rstrip("a"))
    if specific_suffix(cu):
        return [ptx_arch]  # architecture-specific code runs on that architecture only
    return [a for a in SASS_ARCHS if a >= ptx_arch]


def orphan_ptx(expected: set[Path]) -> list[Path]:
    found = [p for pat in ("*.ptx", "*.cubins", "*.kpack") for p in CRATES.glob(f"*/src/ptx/{pat}")]
    return sorted(p for p in found if p.resolve() not in expected)


# ----------------------------------------------------------------------------------------------
# Include dependencies (for the sha256 header lines)
# ----------------------------------------------------------------------------------------------

def includes_of(path: Path) -> list[Path]:
    """Project headers that `path` includes directly: "x" relative to the including file, then
    kernels/include; <x> only from kernels/include (system/NVRTC builtin headers are skipped)."""
    text = path.read_text(encoding="utf-8", errors="replace")
    found = []
    for kind, name in INCLUDE_RE.findall(text):
        candidates = [path.parent / name, INCLUDE / name] if kind == '"' else [INCLUDE / name]
        for c in candidates:
            if c.is_file():
                found.append(c.resolve())
                break
    return found


def transitive_headers(cu: Path) -> list[Path]:
    seen: set[Path] = set()
    stack = includes_of(cu)
    while stack:
        h = stack.pop()
        if h in seen or h == cu.resolve():
            continue
        seen.add(h)
        stack.extend(includes_of(h))
    for h in seen:
        try:
            h.relative_to(ROOT)
        except ValueError:
            die(f"{rel(cu)} includes {h}, which is outside the repository")
    return sorted(seen, key=rel)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def header_for(cu: Path) -> bytes:
    lines = [
        f"// Generated by scripts/ptx.py from {rel(cu)} with NVRTC {NVRTC_VERSION} ({arch_for(cu)}). "
        f"Do not edit: edit the .cu and rerun scripts/ptx.sh.",
        f"// sha256 {sha256(cu)} {rel(cu)}",
    ]
    lines += [f"// sha256 {sha256(h)} {rel(h)}" for h in transitive_headers(cu)]
    return ("\n".join(lines) + "\n").encode()


# ----------------------------------------------------------------------------------------------
# NVRTC: install (pip --target into .tools/nvrtc) and load via ctypes
# ----------------------------------------------------------------------------------------------

def ensure_nvrtc() -> None:
    if (NVRTC_LIB_DIR / "libnvrtc.so.12").is_file() and NVRTC_DIST_INFO.is_dir():
        return
    pip_install(NVRTC_PKG, NVRTC_VERSION, TOOLS)
    if not (NVRTC_LIB_DIR / "libnvrtc.so.12").is_file():
        die(f"{NVRTC_PKG} installed but {NVRTC_LIB_DIR}/libnvrtc.so.12 is missing")


def pip_install(pkg: str, version: str, target: Path) -> None:
    """pip-installs pkg==version into `target` (via a temp dir renamed into place, so an
    interrupted install never leaves a half-populated folder behind)."""
    print(f"ptx.py: installing {pkg}=={version} into {rel_or_abs(target)} ...", file=sys.stderr)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix="pip.tmp-", dir=target.parent))
    try:
        env = dict(os.environ, PIP_ROOT_USER_ACTION="ignore", PIP_DISABLE_PIP_VERSION_CHECK="1")
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps",
               "--no-warn-script-location", "--target", str(tmp), f"{pkg}=={version}"]
        r = subprocess.run(cmd, env=env)
        if r.returncode != 0:
            die(f"pip install {pkg}=={version} failed (exit {r.returncode})")
        if target.exists():
            shutil.rmtree(target)
        tmp.rename(target)
    finally:
        if tmp.exists():
            shutil.rmtree(tmp, ignore_errors=True)


def zstd():
    """The pinned zstandard module (installed into .tools/zstd on first use)."""
    marker = ZSTD_TOOLS / f"{ZSTD_PKG}-{ZSTD_VERSION}.dist-info"
    if not marker.is_dir():
        pip_install(ZSTD_PKG, ZSTD_VERSION, ZSTD_TOOLS)
    if str(ZSTD_TOOLS) not in sys.path:
        sys.path.insert(0, str(ZSTD_TOOLS))
    import zstandard  # noqa: E402
    if zstandard.__version__ != ZSTD_VERSION:
        die(f"loaded zstandard {zstandard.__version__} from {zstandard.__file__}, "
            f"expected {ZSTD_VERSION}")
    return zstandard


def ensure_ptxas() -> None:
    if not (PTXAS.is_file() and os.access(PTXAS, os.X_OK)):
        pip_install(PTXAS_PKG, NVRTC_VERSION, PTXAS_TOOLS)
        if not PTXAS.is_file():
            die(f"{PTXAS_PKG} installed but {rel_or_abs(PTXAS)} is missing")
        PTXAS.chmod(0o755)
    # Another version there (a tool that installed the package unpinned) would write machine
    # code that --check elsewhere calls stale, under a note that names the pinned version.
    r = subprocess.run([str(PTXAS), "--version"], capture_output=True, text=True)
    if f"V{NVRTC_VERSION}" not in r.stdout:
        found = (r.stdout.strip().splitlines() or ["no version"])[-2:]
        die(f"{rel_or_abs(PTXAS)} is not ptxas {NVRTC_VERSION} ({' / '.join(found)}); "
            f"remove {rel_or_abs(PTXAS_TOOLS)} and run again to install the pinned one")


def ptxas(sections: list[tuple[str, str]], arch: int,
          specific: str = "") -> list[tuple[str, int, bytes]]:
    """Compiles every (kernel, standalone PTX) to an sm_<arch><specific> cubin, in parallel."""
    ensure_ptxas()
    with tempfile.TemporaryDirectory(prefix="gpu-prims-ptxas-") as td:
        def one(item: tuple[int, tuple[str, str]]) -> tuple[str, int, bytes]:
            i, (name, text) = item
            src, dst = Path(td) / f"{i}.ptx", Path(td) / f"{i}.sm_{arch}.cubin"
            data = text.encode()
            src.write_bytes(data)
            r = subprocess.run([str(PTXAS), f"-arch=sm_{arch}{specific}", "-O3", "-o", str(dst),
                                str(src)],
                               capture_output=True, text=True)
            if r.returncode != 0:
                raise RuntimeError(f"ptxas sm_{arch} failed on kernel {name}:\n{r.stderr}")
            # A "performance loss" notice (C7514: wgmma serialized, a wait after every product)
            # is a bug in the kernel's code, not a note: refuse it (docs/conv1d.md, warpgroup).
            if "Performance Loss" in r.stderr:
                raise RuntimeError(f"ptxas sm_{arch} on kernel {name}:\n{r.stderr}")
            return name, kernel_pack.fnv1a64(data), dst.read_bytes()
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            try:
                return list(pool.map(one, enumerate(sections)))
            except RuntimeError as e:
                die(str(e))


def rel_or_abs(p: Path) -> str:
    try:
        return p.relative_to(ROOT).as_posix()
    except ValueError:
        return str(p)


class Nvrtc:
    def __init__(self) -> None:
        ensure_nvrtc()
        # libnvrtc dlopen()s libnvrtc-builtins.so.12.0 by soname at compile time; preloading it
        # RTLD_GLOBAL from the same folder makes that work without touching LD_LIBRARY_PATH.
        for b in sorted(NVRTC_LIB_DIR.glob("libnvrtc-builtins.so*")):
            ctypes.CDLL(str(b), mode=ctypes.RTLD_GLOBAL)
        lib = ctypes.CDLL(str(NVRTC_LIB_DIR / "libnvrtc.so.12"), mode=ctypes.RTLD_GLOBAL)
        c_int, c_char_p, c_size_t, c_void_p = ctypes.c_int, ctypes.c_char_p, ctypes.c_size_t, ctypes.c_void_p
        P = ctypes.POINTER
        lib.nvrtcGetErrorString.restype = c_char_p
        lib.nvrtcGetErrorString.argtypes = [c_int]
        lib.nvrtcVersion.argtypes = [P(c_int), P(c_int)]
        lib.nvrtcCreateProgram.argtypes = [P(c_void_p), c_char_p, c_char_p, c_int,
                                           P(c_char_p), P(c_char_p)]
        lib.nvrtcCompileProgram.argtypes = [c_void_p, c_int, P(c_char_p)]
        lib.nvrtcGetPTXSize.argtypes = [c_void_p, P(c_size_t)]
        lib.nvrtcGetPTX.argtypes = [c_void_p, c_char_p]
        lib.nvrtcGetProgramLogSize.argtypes = [c_void_p, P(c_size_t)]
        lib.nvrtcGetProgramLog.argtypes = [c_void_p, c_char_p]
        lib.nvrtcDestroyProgram.argtypes = [P(c_void_p)]
        for f in ("nvrtcVersion", "nvrtcCreateProgram", "nvrtcCompileProgram", "nvrtcGetPTXSize",
                  "nvrtcGetPTX", "nvrtcGetProgramLogSize", "nvrtcGetProgramLog",
                  "nvrtcDestroyProgram"):
            getattr(lib, f).restype = c_int
        self.lib = lib
        major, minor = c_int(), c_int()
        self._ok(lib.nvrtcVersion(ctypes.byref(major), ctypes.byref(minor)), "nvrtcVersion")
        want = tuple(int(x) for x in NVRTC_VERSION.split(".")[:2])
        if (major.value, minor.value) != want:
            die(f"loaded NVRTC {major.value}.{minor.value}, expected {NVRTC_VERSION}")

    def _ok(self, rc: int, what: str) -> None:
        if rc != 0:
            die(f"{what} failed: {self.lib.nvrtcGetErrorString(rc).decode()} ({rc})")

    def options(self, arch: str = ARCH) -> list[bytes]:
        return [
            f"--gpu-architecture={arch}".encode(),
            b"--std=c++17",
            f"--include-path={INCLUDE}".encode(),
            b"-DGPU_PRIMS_NVRTC=1",
        ]

    def compile(self, cu: Path) -> tuple[bytes | None, str]:
        """Returns (ptx or None on a compile error, program log)."""
        lib = self.lib
        prog = ctypes.c_void_p()
        self._ok(lib.nvrtcCreateProgram(ctypes.byref(prog), cu.read_bytes(), rel(cu).encode(),
                                        0, None, None), "nvrtcCreateProgram")
        try:
            opts = self.options(arch_for(cu))
            arr = (ctypes.c_char_p * len(opts))(*opts)
            rc = lib.nvrtcCompileProgram(prog, len(opts), arr)
            size = ctypes.c_size_t()
            self._ok(lib.nvrtcGetProgramLogSize(prog, ctypes.byref(size)), "nvrtcGetProgramLogSize")
            buf = ctypes.create_string_buffer(size.value)
            self._ok(lib.nvrtcGetProgramLog(prog, buf), "nvrtcGetProgramLog")
            log = buf.value.decode(errors="replace").strip()
            if rc != 0:
                return None, f"{lib.nvrtcGetErrorString(rc).decode()}\n{log}"
            self._ok(lib.nvrtcGetPTXSize(prog, ctypes.byref(size)), "nvrtcGetPTXSize")
            buf = ctypes.create_string_buffer(size.value)
            self._ok(lib.nvrtcGetPTX(prog, buf), "nvrtcGetPTX")
            return buf.raw[: size.value].rstrip(b"\0"), log
        finally:
            lib.nvrtcDestroyProgram(ctypes.byref(prog))


# Raw bytes per frame of a source's archives: kernel_pack.FRAME_BYTES (256 KiB), except
# gpu-scan's, which take 1 MiB frames to stay under crates.io's 10 MB with the 16-bit shaped
# scans: 7.2 MB of archives instead of about 10 (512 KiB frames: 8.8), for about 6 ms more on
# a first call from cubins, each 1 MiB frame decompressed (docs/loading.md, run 13); and
# gpu-reduce's, 512 KiB since its package reached 9.98 MB: 7.96 MB of archives instead of
# 9.98 (docs/loading.md, ninth session); and gpu-scan's sm90 module, 1 MiB too since it holds the
# prefetching segment tiles and long column spans (1.80 MB of archives in 256 KiB frames).
FRAME_BYTES_FOR = {"scan": 1 << 20, "scan_sm80": 1 << 20, "scan_sm90": 1 << 20, "reduce": 1 << 19}


def frame_bytes_for(cu: Path) -> int:
    return FRAME_BYTES_FOR.get(cu.stem, kernel_pack.FRAME_BYTES)


CALLSEQ = re.compile(r"(// callseq )(\d+)")


def canonical_callseq(text: str) -> str:
    """NVRTC 12.0 numbers a module's call sequences (the `// callseq N` comments around each
    call of a __noinline__ function) in an order that varies from one compile to the next, and
    nothing else in the PTX varies with it: the numbers are renumbered in order of appearance."""
    seen: dict[str, str] = {}
    return CALLSEQ.sub(lambda m: m.group(1) + seen.setdefault(m.group(2), str(len(seen))), text)


def pack_for(cu: Path, ptx: bytes) -> tuple[bytes, list[tuple[str, str]]]:
    """The PTX archive for NVRTC's output `ptx` of `cu`, and its per-kernel sections."""
    text = canonical_callseq(ptx.decode())
    try:
        sections = kernel_pack.split(text)
    except ValueError as e:
        die(f"{rel(cu)}: cannot split NVRTC's PTX by kernel: {e}")
    note = header_for(cu).decode() + kernel_pack.nvvm_banner(text)
    entries = [(name, kernel_pack.fnv1a64(body.encode()), body.encode()) for name, body in sections]
    return (kernel_pack.archive(kernel_pack.KIND_PTX, 0, note, entries, zstd(),
                                frame_bytes_for(cu)), sections)


def build_all(sources: list[Path], with_cubins: bool = True) -> dict[Path, bytes]:
    """Compiles every source; returns {output path: full file bytes} for the PTX packs and (with
    `with_cubins`) the cubin packs. Exits 1 on a compile error."""
    out: dict[Path, bytes] = {}
    if not sources:
        return out
    nvrtc = Nvrtc()
    failed = []
    for cu in sources:
        dst = ptx_path_for(cu)
        ptx, log = nvrtc.compile(cu)
        if ptx is None:
            print(f"ptx.py: NVRTC failed to compile {rel(cu)}:\n{log}\n", file=sys.stderr)
            failed.append(rel(cu))
            continue
        if log:
            print(f"ptx.py: NVRTC log for {rel(cu)}:\n{log}\n", file=sys.stderr)
        pack, sections = pack_for(cu, ptx)
        out[dst.resolve()] = pack
        if with_cubins:
            for arch in sass_archs_for(cu):
                cubins = ptxas(sections, arch, specific_suffix(cu))
                note = (f"// ptxas {NVRTC_VERSION} -arch=sm_{arch}{specific_suffix(cu)} -O3 of each kernel of "
                        f"{rel(dst)}\n")
                out[cubins_path_for(cu, arch).resolve()] = kernel_pack.archive(
                    kernel_pack.KIND_CUBINS, arch, note, cubins, zstd(), frame_bytes_for(cu))
    if failed:
        die(f"compile errors in: {', '.join(failed)}")
    return out


# ----------------------------------------------------------------------------------------------
# Modes
# ----------------------------------------------------------------------------------------------

def test_kernel_sources() -> list[Path]:
    """Kernels of tests (crates/<crate>/tests/kernels/*.cu): plain PTX beside each source, no
    cubins, never shipped in a package."""
    return sorted(CRATES.glob("*/tests/kernels/*.cu"))


def test_kernels(check: bool) -> list[str]:
    """Writes (or with `check`, compares) each test kernel's PTX; returns the problems."""
    problems: list[str] = []
    sources = test_kernel_sources()
    if not sources:
        return problems
    nvrtc = Nvrtc()
    for cu in sources:
        ptx, log = nvrtc.compile(cu)
        if ptx is None:
            die(f"NVRTC failed to compile {rel(cu)}:\n{log}")
        data = header_for(cu) + ptx + b"\n"
        dst = cu.with_suffix(".ptx")
        if check:
            if not dst.is_file() or dst.read_bytes() != data:
                problems.append(f"stale:   {rel(dst)} (run scripts/ptx.sh)")
        elif not dst.is_file() or dst.read_bytes() != data:
            dst.write_bytes(data)
            print(f"wrote     {rel(dst)}")
        else:
            print(f"unchanged {rel(dst)}")
    return problems


def mode_list(sources: list[Path]) -> int:
    for cu in sources:
        outs = [ptx_path_for(cu)] + [cubins_path_for(cu, a) for a in sass_archs_for(cu)]
        print(f"{rel(cu)} -> {', '.join(o.relative_to(ROOT).as_posix() for o in outs)}")
    return 0


def mode_write(sources: list[Path]) -> int:
    built = build_all(sources)
    changed = 0
    for dst, data in built.items():
        if dst.is_file() and same_archive(dst.read_bytes(), data):
            print(f"unchanged {rel(dst)}")
            continue
        dst.parent.mkdir(parents=True, exist_ok=True)
        tmp = dst.with_name(dst.name + ".tmp")
        tmp.write_bytes(data)
        os.replace(tmp, dst)
        print(f"wrote     {rel(dst)}")
        changed += 1
    orphans = [] if os.environ.get("PTX_ONLY") else orphan_ptx(set(built))
    for o in orphans:
        print(f"ptx.py: warning: {rel(o)} has no kernels/*.cu source (remove it: git rm {rel(o)})",
              file=sys.stderr)
    print(f"ptx.py: {len(built)} file(s) from {len(sources)} kernel source(s), {changed} rewritten")
    test_kernels(check=False)
    return 0


def same_archive(a: bytes, b: bytes) -> bool:
    """Whether two kernel archives hold the same kernels in the same frames (compressed bytes
    may differ; a change of FRAME_BYTES_FOR alone makes them differ, so that it is written and
    `--check` sees a stale one)."""
    if a == b:
        return True
    try:
        return (kernel_pack.frame_layout(a) == kernel_pack.frame_layout(b)
                and kernel_pack.read_archive(a, zstd()) == kernel_pack.read_archive(b, zstd()))
    except (ValueError, struct.error):
        return False


def text_of(data: bytes) -> str:
    try:
        return kernel_pack.archive_text(data, zstd())
    except (ValueError, struct.error) as e:
        return f"(unreadable kernel archive: {e})\n"


def mode_check(sources: list[Path]) -> int:
    built = build_all(sources)
    problems: list[str] = []
    nvrtc = None  # loaded again only if some file needs recompiling
    for dst, data in built.items():
        if not dst.is_file():
            problems.append(f"missing: {rel(dst)} (run scripts/ptx.sh)")
            continue
        old = dst.read_bytes()
        if same_archive(old, data):
            continue
        # NVRTC 12.0 has produced different PTX for the same source from one compile to the
        # next (docs/perf-notes.md, round 3): recompile to tell that apart from stale PTX.
        cu = next((c for c in sources if ptx_path_for(c).resolve() == dst), None)
        if cu is None:  # a cubin archive: ptxas is deterministic, so it is stale
            problems.append(f"stale:   {rel(dst)} (run scripts/ptx.sh)")
            continue
        nvrtc = nvrtc or Nvrtc()
        again = [pack_for(cu, nvrtc.compile(cu)[0] or b"")[0] for _ in range(REPRO_TRIES)]
        if any(same_archive(old, x) for x in again) or any(not same_archive(x, data) for x in again):
            problems.append(f"non-reproducible: {rel(dst)} (NVRTC gave different PTX for the "
                            f"same source across {1 + REPRO_TRIES} compiles; make the kernel "
                            f"code compile deterministically)")
        else:
            problems.append(f"stale:   {rel(dst)} (run scripts/ptx.sh)")
        diff = list(difflib.unified_diff(
            text_of(old).splitlines(), text_of(data).splitlines(),
            fromfile=f"{rel(dst)} (committed)", tofile=f"{rel(dst)} (fresh)", lineterm="", n=1))
        print("\n".join(diff[:20]))
        if len(diff) > 20:
            print(f"... ({len(diff) - 20} more diff lines)")
    for o in orphan_ptx(set(built)):
        problems.append(f"orphan:  {rel(o)} (no kernels/*.cu makes it; remove it)")
    problems += test_kernels(check=True)
    if problems:
        print("ptx.py --check: FAILED", file=sys.stderr)
        for p in problems:
            print(f"  {p}", file=sys.stderr)
        return 1
    print(f"ptx.py --check: OK ({len(built)} file(s) of {len(sources)} kernel source(s) up to date)")
    return 0


def mode_dump(path: str) -> int:
    sys.stdout.write(kernel_pack.archive_text(Path(path).read_bytes(), zstd()))
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--check", action="store_true",
                   help="compile into a temp dir and fail if committed PTX differs or is orphaned")
    g.add_argument("--list", action="store_true", help="print the .cu -> .ptx mapping")
    g.add_argument("--dump", metavar="FILE", help="print a kernel archive (.kpack) as text")
    args = ap.parse_args()
    if args.dump:
        return mode_dump(args.dump)
    if args.check:
        os.environ.pop("PTX_ONLY", None)
    sources = kernel_sources()
    if not sources and not args.check:
        print("ptx.py: no kernels/*.cu found", file=sys.stderr)
    if args.list:
        return mode_list(sources)
    if args.check:
        return mode_check(sources)
    return mode_write(sources)


if __name__ == "__main__":
    sys.exit(main())
