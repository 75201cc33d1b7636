import ctypes, os, sys, subprocess, random
cu = ctypes.CDLL("libcuda.so.1")
def name(c):
    p = ctypes.c_char_p(); r = cu.cuGetErrorName(ctypes.c_int(c), ctypes.byref(p))
    return p.value.decode() if r == 0 and p.value else str(c)
def ck(log, what, r): log.append(f"{what} -> {r} {name(r)}"); return r
def ptx(body, entry):
    return f""".version 7.0
.target sm_70
.address_size 64
.visible .entry {entry}(.param .u64 p)
{{
  .reg .b64 %rd<2>;
  .reg .b32 %r<2>;
  ld.param.u64 %rd1, [p];
  mov.u32 %r1, 1;
  {body}
  ret;
}}
""".encode()
def fault():
    log = []
    ck(log, "cuInit", cu.cuInit(0))
    dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p(); ck(log, "retain", cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)); cu.cuCtxSetCurrent(ctx)
    mod = ctypes.c_void_p(); ck(log, "load", cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx("st.global.u32 [%rd1], %r1;", "k"))))
    fn = ctypes.c_void_p(); cu.cuModuleGetFunction(ctypes.byref(fn), mod, b"k")
    arg = ctypes.c_uint64(0); argp = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
    ck(log, "launch", cu.cuLaunchKernel(fn, 1,1,1, 1,1,1, 0, None, argp, None))
    ck(log, "sync", cu.cuCtxSynchronize())
    ck(log, "release", cu.cuDevicePrimaryCtxRelease_v2(dev))
    for i in range(2, 6):
        c = ctypes.c_void_p(); ck(log, f"retain{i}", cu.cuDevicePrimaryCtxRetain(ctypes.byref(c), dev))
        ck(log, f"setcurrent{i}", cu.cuCtxSetCurrent(c))
        b = ctypes.c_uint64(); ck(log, f"alloc{i}", cu.cuMemAlloc_v2(ctypes.byref(b), ctypes.c_size_t(64)))
        ck(log, f"release{i}", cu.cuDevicePrimaryCtxRelease_v2(dev))
    c = ctypes.c_void_p(); ck(log, "cuCtxCreate", cu.cuCtxCreate_v2(ctypes.byref(c), 0, dev))
    b = ctypes.c_uint64(); ck(log, "alloc-created", cu.cuMemAlloc_v2(ctypes.byref(b), ctypes.c_size_t(64)))
    ck(log, "reset", cu.cuDevicePrimaryCtxReset_v2(dev))
    c = ctypes.c_void_p(); ck(log, "retain-after-reset", cu.cuDevicePrimaryCtxRetain(ctypes.byref(c), dev)); cu.cuCtxSetCurrent(c)
    b = ctypes.c_uint64(); ck(log, "alloc-after-reset", cu.cuMemAlloc_v2(ctypes.byref(b), ctypes.c_size_t(64)))
    return log
def jit(launch):
    log = []
    ck(log, "cuInit", cu.cuInit(0))
    dev = ctypes.c_int(); cu.cuDeviceGet(ctypes.byref(dev), 0)
    ctx = ctypes.c_void_p(); cu.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev); cu.cuCtxSetCurrent(ctx)
    entry = f"k{random.randrange(1<<30)}"
    mod = ctypes.c_void_p(); ck(log, "load ptx", cu.cuModuleLoadData(ctypes.byref(mod), ctypes.c_char_p(ptx("", entry))))
    fn = ctypes.c_void_p(); ck(log, "getfn", cu.cuModuleGetFunction(ctypes.byref(fn), mod, entry.encode()))
    arg = ctypes.c_uint64(0); argp = (ctypes.c_void_p * 1)(ctypes.cast(ctypes.byref(arg), ctypes.c_void_p))
    ck(log, "launch", cu.cuLaunchKernel(fn, 1,1,1, 1,1,1, 0, None, argp, None))
    ck(log, "sync", cu.cuCtxSynchronize())
    return log
if len(sys.argv) > 1:
    print("\n".join(fault() if sys.argv[1] == "fault" else jit(True))); sys.exit(0)
out = os.environ.get("OUT", ".")
rep = []
p = subprocess.run([sys.executable, __file__, "fault"], capture_output=True, text=True, timeout=120)
rep.append(f"=== fault, retries (rc {p.returncode})\n{p.stdout}{p.stderr}")
for env in [{"CUDA_DISABLE_PTX_JIT": "1"}, {"CUDA_DISABLE_PTX_JIT": "1", "CUDA_CACHE_DISABLE": "1"}, {"CUDA_CACHE_DISABLE": "1"}]:
    p = subprocess.run([sys.executable, __file__, "jit"], capture_output=True, text=True, timeout=120, env={**os.environ, **env})
    rep.append(f"=== jit env {env} (rc {p.returncode})\n{p.stdout}{p.stderr}")
open(f"{out}/probe_b.txt", "w").write("\n".join(rep) + "\n")
print("\n".join(rep))
