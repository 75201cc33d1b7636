#!/usr/bin/env python3
"""ptx-mix.py — static instruction mix of kernels in a .kpack (PTX) and their SASS size.

Usage: one-off/ptx-mix.py KPACK|PTX ENTRY [ENTRY...] [--sass sm_90]
Counts PTX instructions of each entry by class (float, integer/address, shared, global,
barrier, branch, other) and, with --sass, assembles the entry with the local ptxas
(.tools/nvcc) to report registers, spills and the .text size in instructions (16 bytes each
from sm_70 on). A proxy for the executed mix where the kernel is straight-line code (the FFT
kernels are), no GPU needed."""
import collections, os, re, subprocess, sys, tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PTXAS = os.path.join(ROOT, ".tools/nvcc/nvidia/cuda_nvcc/bin/ptxas")


def entries(kpack):
    if kpack.endswith(".ptx"):
        return split_module(open(kpack).read())
    text = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/ptx.py"), "--dump", kpack],
                          check=True, capture_output=True, text=True).stdout
    parts = re.split(r"^//@entry (\S+)\n", text, flags=re.M)
    return {parts[i]: parts[i + 1] for i in range(1, len(parts), 2)}


def split_module(text):
    """{entry: PTX module of that entry alone} of one NVRTC module (its header repeated)."""
    idx = [m.start() for m in re.finditer(r"^\t// \.globl", text, flags=re.M)] + [len(text)]
    head = text[:text.index("\t// .globl")]
    decls = text[idx[0]:text.index(".visible .entry", idx[0])]
    decls = "\n".join(l for l in decls.splitlines() if not l.strip().startswith("// .globl"))
    out = {}
    for a, b in zip(idx, idx[1:]):
        part = text[a:b]
        name = re.search(r"\.entry (\S+)\(", part).group(1)
        out[name] = head + decls + "\n" + part[part.index(".visible .entry"):]
    return out


def klass(op):
    base = op.split(".")[0]
    if base in ("ld", "st", "atom", "red", "cp", "ldmatrix"):
        space = "shared" if ".shared" in op else "global" if ".global" in op or base == "ld" and ".param" not in op else "param"
        return "mem." + space
    if base in ("bar", "barrier", "vote", "membar", "fence"):
        return "barrier/vote"
    if base in ("bra", "ret", "call", "exit"):
        return "branch"
    if base in ("setp", "selp", "set"):
        return "compare/select." + ("float" if re.search(r"\.f(16|32|64)", op) else "int")
    if re.search(r"\.f(16|32|64)\b|\.f(16|32|64)\.|\.rn\.f|\.bf16", op) and base not in ("cvt", "mov"):
        return "float"
    if base in ("cvt", "mov", "prmt", "cvta"):
        return "move/convert"
    return "integer"


def mix(ptx):
    body = ptx[ptx.index("{"):]
    counts = collections.Counter()
    ops = collections.Counter()
    for line in body.splitlines():
        line = line.strip()
        if not line or line.startswith(("//", ".", "$", "{", "}")):
            continue
        line = re.sub(r"^@!?%p\d+\s+", "", line)
        op = line.split()[0].rstrip(";")
        counts[klass(op)] += 1
        ops[op] += 1
    return counts, ops


def sass(ptx, arch):
    """{entry: (ptxas -v summary, SASS instructions)} for every entry of one PTX module."""
    import struct
    with tempfile.TemporaryDirectory() as d:
        src, out = os.path.join(d, "k.ptx"), os.path.join(d, "k.cubin")
        open(src, "w").write(ptx)
        r = subprocess.run([PTXAS, "-arch", arch, "-v", "-o", out, src], capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(r.stderr)
        info, name = {}, None
        for line in r.stderr.splitlines():
            m = re.search(r"Function properties for (\S+)", line) or re.search(r"Compiling entry function '(\S+)'", line)
            if m:
                name = m.group(1)
            elif name and ("spill" in line or "registers" in line):
                info[name] = (info.get(name, "") + " " + line.split("ptxas info    :")[-1].strip()).strip()
        data = open(out, "rb").read()
        shoff, = struct.unpack_from("<Q", data, 0x28)
        shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
        hdr = lambda i: struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        stroff = hdr(shstrndx)[4]
        result = {}
        for i in range(shnum):
            h = hdr(i)
            sec = data[stroff + h[0]:data.index(b"\0", stroff + h[0])].decode()
            if sec.startswith(".text."):
                result[sec[6:]] = (info.get(sec[6:], ""), h[5] // 16)
        return result


def main():
    args = sys.argv[1:]
    arch = None
    if "--sass" in args:
        i = args.index("--sass")
        arch = args[i + 1]
        del args[i:i + 2]
    kpack, names = args[0], args[1:]
    all_entries = entries(kpack)
    for name in names:
        ptx = all_entries[name]
        sizes = sass(ptx, arch) if arch else {}
        counts, ops = mix(ptx)
        total = sum(counts.values())
        print(f"== {name}: {total} PTX instructions")
        for k, c in counts.most_common():
            print(f"  {k:24s} {c:6d} {100 * c / total:5.1f} %")
        print("  top integer ops:", ", ".join(f"{o} {c}" for o, c in ops.most_common()
                                               if klass(o) in ("integer", "move/convert", "compare/select.int"))[:300])
        if arch:
            info, n = sizes[name]
            print(f"  {arch}: {n} SASS instructions; {info}")


if __name__ == "__main__":
    main()
