#!/usr/bin/env python3
# Which committed sm_90 cubins use local memory (LDL/STL in their SASS: spills or indexed
# arrays), through scripts/sass.py; no GPU. Run from the repository root (about 25 minutes on
# two cores); the forty-ninth session's list is one-off/local-memory-sm90.txt.
import glob, re, sys
sys.path.insert(0, 'scripts')
import kernel_pack, ptx, sass
found = 0
for f in sorted(glob.glob(sys.argv[1] if len(sys.argv) > 1 else 'crates/*/src/ptx/*.sm_90.kpack')):
    _, _, _, entries = kernel_pack.read_archive(open(f, 'rb').read(), ptx.zstd())
    for name, _, raw in entries:
        listing = sass.disassemble(raw)
        ldl, stl = len(re.findall(r"\bLDL\b", listing)), len(re.findall(r"\bSTL\b", listing))
        if ldl or stl:
            found += 1
            print(f.split('/')[-1], name, ldl, stl, flush=True)
print(found, "kernels use local memory", file=sys.stderr)
