# Issue 25 probe: error names for 0..1000, sticky-fault recovery in one process, JIT disabled.
import ctypes, os, sys, json, subprocess
cu = ctypes.CDLL("libcuda.so.1")
def name(c):
    p = ctypes.c_char_p()
    r = cu.cuGetErrorName(ctypes.c_int(c), ctypes.byref(p))
    return r, (p.value.decode() if r == 0 and p.value else None)
def desc(c):
    p = ctypes.c_char_p()
    r = cu.cuGetErrorString(ctypes.c_int(c), ctypes.byref(p))
    return (p.value.decode() if r == 0 and p.value else None)

PTX_TMPL = """.version 7.0
.target sm_70
.address_size 64
.visible .entry k(.param .u64 p)
{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 1;
  BODY
  ret;
}
"""
def ck(what, r, log):
    log.append(f"{what} -> {r} {name(r)[1]}")
    return r

def fault_run(kind, recovery):
    log = []
    ck("cuInit", cu.cuInit(0), log)
    dev = ctypes.c_int(); ck("cuDeviceGet", cu.cuDeviceGet(ctypes.byref(dev), 0), log)
    ctx = ctypes.c_void_p(); ck("retain", cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), log)
    ck("setcurrent", cu.cuCtxSetCurrent(ctx), log)
    body = {"illegal": "st.global.u32 [%rd1], %r1;", "trap": "trap;", "misaligned": "st.global.u32 [%rd1+2], %r1;"}[kind]
    ptx = PTX_TMPL.replace("BODY", body).encode()
    mod = ctypes.c_void_p(); ck("load", cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx)), log)
    fn = ctypes.c_void_p(); ck("getfn", cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"k"), log)
    buf = ctypes.c_uint64(); ck("alloc", cu.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(1024)), log)
    arg = ctypes.c_uint64(0 if kind != "misaligned" else buf.value)
    argp = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
    ck("launch", cu.cuLaunchKernel(fn, 1,1,1, 1,1,1, 0, None, argp, None), log)
    ck("ctxsync", cu.cuCtxSynchronize(), log)
    ck("ctxsync2", cu.cuCtxSynchronize(), log)
    b2 = ctypes.c_uint64(); ck("alloc-after", cu.cuMemAlloc_v2(ctypes.byref(b2), ctypes.c_size_t(1024)), log)
    ck("free-after", cu.cuMemFree_v2(buf), log)
    ck("getlasterr?memgetinfo", cu.cuMemGetInfo_v2(ctypes.byref(ctypes.c_size_t()), ctypes.byref(ctypes.c_size_t())), log)
    st = ctypes.c_uint(); act = ctypes.c_int()
    ck("primaryctxgetstate", cu.cuDevicePrimaryCtxGetState(dev, ctypes.byref(st), ctypes.byref(act)), log)
    log.append(f"  active={act.value}")
    if recovery == "release":
        ck("unload", cu.cuModuleUnload(mod), log)
        ck("release", cu.cuDevicePrimaryCtxRelease_v2(dev), log)
    elif recovery == "reset":
        ck("reset", cu.cuDevicePrimaryCtxReset_v2(dev), log)
    ck("primaryctxgetstate2", cu.cuDevicePrimaryCtxGetState(dev, ctypes.byref(st), ctypes.byref(act)), log)
    log.append(f"  active={act.value}")
    ctx2 = ctypes.c_void_p(); ck("retain2", cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx2), dev), log)
    log.append(f"  same handle: {ctx.value == ctx2.value}")
    ck("setcurrent2", cu.cuCtxSetCurrent(ctx2), log)
    b3 = ctypes.c_uint64(); ck("alloc2", cu.cuMemAlloc_v2(ctypes.byref(b3), ctypes.c_size_t(1024)), log)
    ck("memset2", cu.cuMemsetD8_v2(b3, 7, ctypes.c_size_t(1024)), log)
    h = (ctypes.c_ubyte * 4)()
    ck("dtoh2", cu.cuMemcpyDtoH_v2(h, b3, ctypes.c_size_t(4)), log)
    log.append(f"  bytes {list(h)}")
    mod2 = ctypes.c_void_p(); ck("load2", cu.cuModuleLoadData(ctypes.byref(mod2), ctypes.c_char_p(PTX_TMPL.replace("BODY","").encode())), log)
    fn2 = ctypes.c_void_p(); ck("getfn2", cu.cuModuleGetFunction(ctypes.byref(fn2), mod2, b"k"), log)
    ck("launch2", cu.cuLaunchKernel(fn2, 1,1,1, 1,1,1, 0, None, argp, None), log)
    ck("ctxsync3", cu.cuCtxSynchronize(), log)
    return log

def jit_run():
    log = []
    ck("cuInit", cu.cuInit(0), log)
    dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cu.cuCtxSetCurrent(ctx)
    ptx = PTX_TMPL.replace("BODY", "").encode()
    mod = ctypes.c_void_p(); ck("load ptx", cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx)), log)
    return log

if len(sys.argv) > 1:
    if sys.argv[1] == "fault":
        print("\n".join(fault_run(sys.argv[2], sys.argv[3])))
    else:
        print("\n".join(jit_run()))
    sys.exit(0)

out = os.environ.get("OUT", ".")
cu.cuInit(0)
rows = []
for c in range(0, 1001):
    r, n = name(c)
    if r == 0:
        rows.append(f"{c}\t{n}\t{desc(c)}")
open(f"{out}/error_names.tsv", "w").write("\n".join(rows) + "\n")
v = ctypes.c_int(); cu.cuDriverGetVersion(ctypes.byref(v))
rep = [f"driver version {v.value}", f"named codes: {len(rows)}"]
for kind in ["illegal", "trap", "misaligned"]:
    for rec in ["release", "reset", "none"]:
        p = subprocess.run([sys.executable, __file__, "fault", kind, rec], capture_output=True, text=True, timeout=120)
        rep.append(f"=== fault {kind} recovery {rec} (rc {p.returncode})\n{p.stdout}{p.stderr}")
for env in [{}, {"CUDA_DISABLE_PTX_JIT": "1"}]:
    p = subprocess.run([sys.executable, __file__, "jit"], capture_output=True, text=True, timeout=120, env={**os.environ, **env})
    rep.append(f"=== jit env {env} (rc {p.returncode})\n{p.stdout}{p.stderr}")
open(f"{out}/probe.txt", "w").write("\n".join(rep) + "\n")
