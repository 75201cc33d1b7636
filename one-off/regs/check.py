import subprocess, sys, tempfile, re, os
# Registers and spills per kernel of a whole .cu: python3 one-off/regs/check.py kernels/scan.cu compute_70 sm_90 columns
from pathlib import Path
sys.path.insert(0, "/work/main/scripts")
import ptx
src = Path(sys.argv[1]).resolve(); arch = sys.argv[2]; sm = sys.argv[3]; pat = sys.argv[4] if len(sys.argv) > 4 else ''
ptx.ensure_nvrtc(); ptx.ensure_ptxas()
nv = ptx.Nvrtc(); ptx.arch_for = lambda cu: arch
out, log = nv.compile(src)
if out is None: print(log); sys.exit(1)
with tempfile.TemporaryDirectory() as td:
    p = Path(td) / "k.ptx"; p.write_bytes(out)
    r = subprocess.run([str(ptx.PTXAS), f"-arch={sm}", "-O3", "-v", "-o", str(Path(td) / "k.cubin"), str(p)], capture_output=True, text=True)
ents = re.split(r"Compiling entry function '", r.stderr)[1:]
for e in ents:
    name = e.split("'")[0]
    if pat not in name: continue
    regs = re.search(r"Used (\d+) registers", e); sp = re.findall(r"(\d+) bytes spill stores", e)
    print(name, regs.group(1) if regs else '?', max(map(int, sp)) if sp else '?')
