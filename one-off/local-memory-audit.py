#!/usr/bin/env python3
# Which committed sm_90 cubins use local memory (LDL/STL in their SASS: spills or indexed
# arrays), by scripts/sass.py's nvdisasm; no GPU. Run from the repository root (about 25 minutes
# on two cores); the forty-ninth session's list is one-off/local-memory-sm90.txt.
import sys, glob, re, subprocess, tempfile, collections
sys.path.insert(0,'scripts')
import kernel_pack, ptx, sass
z=ptx.zstd(); nd=str(sass.nvdisasm())
out=[]
for f in sorted(glob.glob('crates/*/src/ptx/*.sm_90.kpack')):
    kind,arch,note,entries=kernel_pack.read_archive(open(f,'rb').read(),z)
    for name,_,raw in entries:
        with tempfile.NamedTemporaryFile(suffix='.cubin') as t:
            t.write(raw); t.flush()
            r=subprocess.run([nd,'-c',t.name],capture_output=True,text=True).stdout
        l=len(re.findall(r"\bLDL\b|\bLDL\.",r)); s=len(re.findall(r"\bSTL\b|\bSTL\.",r))
        if l or s: out.append((f.split("/")[-1],name,l,s)); print(f.split("/")[-1],name,l,s,flush=True)
print(len(out), "kernels use local memory", file=sys.stderr)
