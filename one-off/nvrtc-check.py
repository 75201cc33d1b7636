#!/usr/bin/env python3
"""Compiles one .cu (device code only: host code behind #ifndef __CUDACC_RTC__) with the
repository's NVRTC for compute_80 (or the arch given), then ptxas -v for sm_90 (or $SM):
registers and spills per kernel."""
import os, subprocess, sys, tempfile
from pathlib import Path
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
import ptx  # noqa: E402
src = Path(sys.argv[1]).resolve()
arch = sys.argv[2] if len(sys.argv) > 2 else "compute_80"
ptx.ensure_nvrtc(); ptx.ensure_ptxas()
nv = ptx.Nvrtc()
ptx.arch_for = lambda cu: arch
out, log = nv.compile(src)
if out is None:
    print(log); sys.exit(1)
with tempfile.TemporaryDirectory() as td:
    p = Path(td) / "k.ptx"; p.write_bytes(out)
    sm = os.environ.get("SM") or "sm_" + arch.split("_")[1]
    if sm == "sm_80": sm = "sm_90"
    r = subprocess.run([str(ptx.PTXAS), f"-arch={sm}", "-O3", "-v", "-o", str(Path(td) / "k.cubin"), str(p)], capture_output=True, text=True)
    print(r.stderr)
    if len(sys.argv) > 3: Path(sys.argv[3]).write_bytes(out)
