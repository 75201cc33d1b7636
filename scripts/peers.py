#!/usr/bin/env python3
"""peers.py — the report's operations with PyTorch and CuPy on the same GPU, timed the same way.

Runs sum, max (full reductions), cumsum (inclusive prefix sum, output of the input's type;
cumsum_host: from and to page-locked host memory, PyTorch only; sum_host: the sum of
page-locked host data, the value on the host; conv1d_host: page-locked signal in, page-locked
result out), conv1d
(one channel, cross-correlation, zero 'same' padding: torch.nn.functional.conv1d /
cupyx.scipy.ndimage.correlate1d or cupyx.scipy.signal.correlate) and a device-to-device copy of
each array, for each size and type, with each library that imports and sees a GPU. Every
operation is timed with CUDA events on the library's current stream: warm-up runs, then the
median of several samples (short runs are batched so a sample lasts at least 0.2 ms), exactly as
the report times our primitives. Each figure is also quoted as a fraction of the same library's
device-to-device copy of the same array, measured in the same run, with the report's byte model:

    sum, max, sum_host   n*size bytes      cumsum(_host), conv1d(_host), copy   2*n*size bytes
    copy_fraction = (bytes / ms) / (2*n*size / copy_ms)

Output (--out, default peers.json), schema "gpu-prims-peers/1":
    {"schema": ..., "device": "...", "libraries": {"torch": "2.4.0", "cupy": null},
     "config": {...}, "results": [
        {"op": "sum", "library": "torch", "dtype": "f32", "n": 268435456, "w": null,
         "ms": 0.36, "ms_min": ..., "ms_max": ..., "samples": 15, "bytes": 1073741824,
         "gbps": 2980.1, "copy_ms": 0.71, "copy_gbps": 3020.5, "copy_fraction": 0.987,
         "checked": true, "status": "ok", "note": ""}, ...]}
    status: "ok", "absent" (library, GPU or operation missing; `note` says which) or "error".
    checked: the operation's result on a small input matched a NumPy reference (null: not run).

A missing library, GPU or operation is recorded as absent, never a crash. Exit status 0 unless
the arguments are bad or the output cannot be written.

Usage:  python3 scripts/peers.py [--sizes 20,24,28] [--types i32,f32] [--widths 3,7,31,127]
                                 [--ops sum,max,cumsum,cumsum_host,sum_host,conv1d,conv1d_host] [--libs torch,cupy]
                                 [--reps 15] [--warmup 3] [--out peers.json] [--quick]
"""

import argparse
import json
import math
import os
import statistics
import sys
import time
import traceback

SCHEMA = "gpu-prims-peers/1"
MIN_SAMPLE_MS = 0.2
# Untimed runs go on until this much wall time has passed (as the Rust benchmarks' GpuTiming;
# docs/report.md). GPU_PRIMS_BENCH_WARMUP_MS sets it.
WARMUP_MS = float(os.environ.get("GPU_PRIMS_BENCH_WARMUP_MS", "200"))
MAX_BATCH = 200


def log(msg):
    print(f"peers: {msg}", file=sys.stderr, flush=True)


def parse_sizes(text):
    out = []
    for s in text.split(","):
        s = s.strip().replace("_", "")
        if not s:
            continue
        if s.startswith("2^"):
            s = s[2:]
        v = int(s)
        out.append(1 << v if v <= 40 else v)
    return out


def size_label(n):
    return f"2^{n.bit_length() - 1}" if n & (n - 1) == 0 else str(n)


# ---- Timing ------------------------------------------------------------------------------------

def time_events(new_event, elapsed_ms, run, warmup, reps):
    """Median per-run milliseconds of `run` between CUDA events (batched when short)."""
    for _ in range(warmup):
        run()
    start, stop = new_event(), new_event()
    # Then untimed runs until WARMUP_MS of wall time (as the Rust benchmarks' GpuTiming).
    t0 = time.perf_counter()
    while (time.perf_counter() - t0) * 1e3 < WARMUP_MS:
        run()
        stop.record()
        stop.synchronize()
    start.record()
    run()
    stop.record()
    stop.synchronize()
    one = elapsed_ms(start, stop)
    batch = 1 if one >= MIN_SAMPLE_MS else min(MAX_BATCH, max(1, math.ceil(MIN_SAMPLE_MS / max(one, 1e-4))))
    samples = []
    for _ in range(max(1, reps)):
        start.record()
        for _ in range(batch):
            run()
        stop.record()
        stop.synchronize()
        samples.append(elapsed_ms(start, stop) / batch)
    return statistics.median(samples), min(samples), max(samples), len(samples)


# ---- Libraries ---------------------------------------------------------------------------------

class Torch:
    name = "torch"

    def __init__(self):
        import torch  # noqa: F401  (ImportError -> absent)
        self.torch = torch
        self.version = torch.__version__
        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.dev = torch.device("cuda", 0)
        self.device_name = torch.cuda.get_device_name(0)
        self.F = torch.nn.functional

    def dtype(self, name):
        return {"i32": self.torch.int32, "f32": self.torch.float32,
                "i64": self.torch.int64, "f64": self.torch.float64,
                "f16": self.torch.float16, "bf16": self.torch.bfloat16}[name]

    def data(self, n, dtype, seed=1):
        g = self.torch.Generator(device=self.dev)
        g.manual_seed(seed)
        x = self.torch.randint(-8, 9, (n,), generator=g, device=self.dev, dtype=self.torch.int32)
        return x.to(self.dtype(dtype))

    def from_numpy(self, a, dtype=None):
        x = self.torch.from_numpy(a).to(self.dev)
        return x if dtype is None else x.to(self.dtype(dtype))

    def to_numpy(self, x):
        if x.dtype == self.torch.bfloat16:
            x = x.float()
        return x.cpu().numpy()

    def empty_like(self, x):
        return self.torch.empty_like(x)

    def timer(self, run, warmup, reps):
        ev = lambda: self.torch.cuda.Event(enable_timing=True)  # noqa: E731
        return time_events(ev, lambda a, b: a.elapsed_time(b), run, warmup, reps)

    def op(self, op, x, y, m):
        t = self.torch
        if op == "copy":
            return lambda: y.copy_(x)
        if op == "sum":
            if x.dtype in (t.float16, t.bfloat16):
                # f32 accumulation and result, as gpu-reduce sums 16-bit floats.
                return lambda: t.sum(x, dtype=t.float32)
            return lambda: t.sum(x)
        if op == "max":
            return lambda: t.max(x)
        if op == "cumsum":
            return lambda: t.cumsum(x, 0, dtype=x.dtype, out=y)
        if op == "cumsum_host":
            # Page-locked host memory in and out, as a PyTorch user with pinned buffers writes
            # it: upload, cumsum, download on the current stream, then wait for the result.
            xh = x.cpu().pin_memory()
            yh = t.empty_like(xh).pin_memory()
            stream = t.cuda.current_stream()

            def run():
                xd = xh.to(self.dev, non_blocking=True)
                yh.copy_(t.cumsum(xd, 0, dtype=x.dtype), non_blocking=True)
                stream.synchronize()
                return yh
            return run
        if op == "sum_host":
            # Page-locked host data in, the value on the host: upload, sum, .item() (which
            # waits).
            xh = x.cpu().pin_memory()

            def run():
                xd = xh.to(self.dev, non_blocking=True)
                s = t.sum(xd, dtype=t.float32) if xd.dtype in (t.float16, t.bfloat16) else t.sum(xd)
                return s.item()
            return run
        if op in ("conv1d", "conv1d_host"):
            if not x.is_floating_point():
                raise NotImplementedError("torch conv1d has no integer CUDA kernel")
            if m.numel() % 2 == 0:
                raise NotImplementedError("even mask widths not compared")
            mv = m.view(1, 1, -1)
            if op == "conv1d":
                xv = x.view(1, 1, -1)
                return lambda: self.F.conv1d(xv, mv, padding="same")
            # Page-locked signal in, page-locked result out, as cumsum_host.
            xh = x.cpu().pin_memory()
            yh = t.empty_like(xh).pin_memory()
            stream = t.cuda.current_stream()

            def run_host():
                xd = xh.to(self.dev, non_blocking=True).view(1, 1, -1)
                yh.copy_(self.F.conv1d(xd, mv, padding="same").view(-1), non_blocking=True)
                stream.synchronize()
                return yh
            return run_host
        raise NotImplementedError(op)

    def free(self):
        self.torch.cuda.synchronize()
        self.torch.cuda.empty_cache()


class CuPy:
    name = "cupy"

    def __init__(self):
        import cupy  # noqa: F401  (ImportError -> absent)
        self.cp = cupy
        self.version = cupy.__version__
        if cupy.cuda.runtime.getDeviceCount() < 1:
            raise RuntimeError("no CUDA device")
        props = cupy.cuda.runtime.getDeviceProperties(0)
        name = props.get("name", b"")
        self.device_name = name.decode() if isinstance(name, bytes) else str(name)
        self.correlate = None
        self.correlate_name = None
        try:
            from cupyx.scipy import ndimage
            self.correlate = lambda x, m: ndimage.correlate1d(x, m, mode="constant", cval=0.0)
            self.correlate_name = "cupyx.scipy.ndimage.correlate1d"
        except Exception:  # noqa: BLE001
            try:
                from cupyx.scipy import signal
                self.correlate = lambda x, m: signal.correlate(x, m, mode="same", method="direct")
                self.correlate_name = "cupyx.scipy.signal.correlate"
            except Exception:  # noqa: BLE001
                try:
                    from cupyx.scipy import signal
                    self.correlate = lambda x, m: signal.convolve(x, m[::-1], mode="same")
                    self.correlate_name = "cupyx.scipy.signal.convolve"
                except Exception:  # noqa: BLE001
                    pass

    def dtype(self, name):
        if name == "bf16":
            raise NotImplementedError("CuPy has no bfloat16 type")
        return {"i32": self.cp.int32, "f32": self.cp.float32,
                "i64": self.cp.int64, "f64": self.cp.float64, "f16": self.cp.float16}[name]

    def data(self, n, dtype, seed=1):
        rs = self.cp.random.RandomState(seed)
        return rs.randint(-8, 9, size=n, dtype=self.cp.int32).astype(self.dtype(dtype))

    def from_numpy(self, a, dtype=None):
        x = self.cp.asarray(a)
        return x if dtype is None else x.astype(self.dtype(dtype))

    def to_numpy(self, x):
        return self.cp.asnumpy(x)

    def empty_like(self, x):
        return self.cp.empty_like(x)

    def timer(self, run, warmup, reps):
        cp = self.cp
        return time_events(lambda: cp.cuda.Event(), lambda a, b: cp.cuda.get_elapsed_time(a, b),
                           run, warmup, reps)

    def op(self, op, x, y, m):
        cp = self.cp
        if op == "copy":
            return lambda: cp.copyto(y, x)
        if op == "sum":
            if x.dtype == cp.float16:
                return lambda: cp.sum(x, dtype=cp.float32)
            return lambda: cp.sum(x)
        if op == "max":
            return lambda: cp.max(x)
        if op == "cumsum":
            return lambda: cp.cumsum(x, dtype=x.dtype, out=y)
        if op == "conv1d":
            if self.correlate is None:
                raise NotImplementedError("no cupyx.scipy correlate1d / correlate / convolve")
            if x.dtype.kind != "f":
                raise NotImplementedError("conv1d compared for floats only")
            if m.size % 2 == 0:
                raise NotImplementedError("even mask widths not compared")
            return lambda: self.correlate(x, m)
        raise NotImplementedError(op)

    def free(self):
        self.cp.cuda.Device().synchronize()
        self.cp.get_default_memory_pool().free_all_blocks()


# ---- Reference checks on a small input ------------------------------------------------------

def numpy_reference(np, op, x, m):
    if op in ("sum", "sum_host"):
        return x.astype(np.float64).sum()
    if op == "max":
        return x.max()
    if op in ("cumsum", "cumsum_host"):
        return np.cumsum(x.astype(np.float64))
    if op in ("conv1d", "conv1d_host"):
        # P[i] = sum_j N[i - r + j] M[j], r = w // 2, zeros outside.
        return np.correlate(x.astype(np.float64), m.astype(np.float64), mode="same")
    if op == "copy":
        return x
    raise NotImplementedError(op)


def check_small(lib, op, dtype, w):
    """Runs `op` on 10007 elements and compares with NumPy; True/False, or None when NumPy is absent."""
    try:
        import numpy as np
    except ImportError:
        return None
    n = 10007
    rng = np.random.default_rng(7)
    # bf16 has no NumPy type: its data go over as f32 and are converted on the device (the
    # values, small integers, are exact in every type).
    npd = {"i32": np.int32, "f32": np.float32, "i64": np.int64, "f64": np.float64,
           "f16": np.float16, "bf16": np.float32}[dtype]
    xh = rng.integers(-8, 9, size=n).astype(npd)
    mh = rng.integers(-3, 4, size=w or 1).astype(npd)
    x, m = lib.from_numpy(xh, dtype), lib.from_numpy(mh, dtype)
    y = lib.empty_like(x)
    run = lib.op(op, x, y, m)
    got = run()
    if op in ("copy", "cumsum"):
        got = y
    # sum_host returns a Python number (the value on the host), the others arrays.
    got = np.asarray(got) if isinstance(got, (int, float)) else lib.to_numpy(got)
    got = got.astype(np.float64).reshape(-1)
    want = np.asarray(numpy_reference(np, op, xh, mh), dtype=np.float64).reshape(-1)
    # 16-bit results are rounded once from a wider sum: within half an ulp of the exact value.
    rtol = {"f16": 2.0 ** -11, "bf16": 2.0 ** -8}.get(dtype, 1e-5)
    return bool(got.shape == want.shape and np.allclose(got, want, rtol=rtol, atol=1e-3))


# ---- Main -------------------------------------------------------------------------------------

def op_widths(op, dtype, widths):
    """The mask widths an operation runs with: conv1d on float types only, others once."""
    if op in ("conv1d", "conv1d_host"):
        return widths if dtype.startswith("f") or dtype == "bf16" else []
    return [None]


def bytes_of(op, n, size):
    return n * size if op in ("sum", "max", "sum_host") else 2 * n * size


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default=None, help="log2 sizes or element counts (default 20,24,28)")
    ap.add_argument("--types", default="i32,f32")
    ap.add_argument("--widths", default="3,7,31,127")
    ap.add_argument("--ops", default="sum,max,cumsum,conv1d")
    ap.add_argument("--libs", default="torch,cupy")
    ap.add_argument("--reps", type=int, default=None, help="timed samples (default 15, quick 7)")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--quick", action="store_true", help="sizes 16,20 and 7 samples")
    ap.add_argument("--no-check", action="store_true", help="skip the small NumPy checks")
    ap.add_argument("--cudnn-benchmark", action="store_true",
                    help="torch.backends.cudnn.benchmark = True (autotuned conv1d; default off)")
    ap.add_argument("--out", default="peers.json")
    args = ap.parse_args(argv)

    sizes = parse_sizes(args.sizes or ("16,20" if args.quick else "20,24,28"))
    reps = args.reps if args.reps is not None else (7 if args.quick else 15)
    types = [t.strip() for t in args.types.split(",") if t.strip()]
    for t in types:
        if t not in ("i32", "f32", "i64", "f64", "f16", "bf16"):
            ap.error(f"unsupported type {t}")
    widths = [int(w) for w in args.widths.split(",") if w.strip()]
    ops = [o.strip() for o in args.ops.split(",") if o.strip()]
    for o in ops:
        if o not in ("sum", "max", "cumsum", "cumsum_host", "sum_host", "conv1d", "conv1d_host",
                     "copy"):
            ap.error(f"unknown op {o}")
    t0 = time.time()

    results, libraries, device, settings = [], {}, None, {}
    for lname in [s.strip() for s in args.libs.split(",") if s.strip()]:
        cls = {"torch": Torch, "cupy": CuPy}.get(lname)
        if cls is None:
            ap.error(f"unknown library {lname}")
        try:
            lib = cls()
        except Exception as e:  # noqa: BLE001  ImportError, no GPU, broken install
            libraries[lname] = None
            log(f"{lname} absent: {type(e).__name__}: {e}")
            for n in sizes:
                for t in types:
                    for op in ["copy"] + ops:
                        for w in op_widths(op, t, widths):
                            results.append({"op": op, "library": lname, "dtype": t, "n": n, "w": w,
                                            "ms": None, "status": "absent",
                                            "note": f"{lname} unavailable: {type(e).__name__}: {e}"})
            continue
        libraries[lname] = lib.version
        device = device or lib.device_name
        if lname == "torch":
            try:
                cudnn = lib.torch.backends.cudnn
                cudnn.benchmark = bool(args.cudnn_benchmark)
                settings["torch"] = {"cudnn_benchmark": cudnn.benchmark,
                                     "cudnn_allow_tf32": bool(cudnn.allow_tf32),
                                     "cudnn_version": cudnn.version() if cudnn.is_available() else None}
            except Exception as e:  # noqa: BLE001
                settings["torch"] = {"error": f"{type(e).__name__}: {e}"}
        if getattr(lib, "correlate_name", None):
            log(f"cupy conv1d via {lib.correlate_name}")

        checked = {}
        if not args.no_check:
            for t in types:
                for op in ["copy"] + ops:
                    for w in op_widths(op, t, widths):
                        try:
                            checked[(op, t, w)] = check_small(lib, op, t, w)
                        except NotImplementedError:
                            checked[(op, t, w)] = None
                        except Exception as e:  # noqa: BLE001
                            log(f"{lname} {op} {t} w={w} check failed to run: {e}")
                            checked[(op, t, w)] = False

        for t in types:
            size = {"i32": 4, "f32": 4, "i64": 8, "f64": 8, "f16": 2, "bf16": 2}[t]
            for n in sizes:
                x = y = m = None
                try:
                    x = lib.data(n, t)
                    y = lib.empty_like(x)
                    copy_ms = lib.timer(lib.op("copy", x, y, None), args.warmup, reps)[0]
                except Exception as e:  # noqa: BLE001  out of memory, ...
                    log(f"{lname} {t} {size_label(n)}: cannot set up: {e}")
                    for op in ["copy"] + ops:
                        for w in op_widths(op, t, widths):
                            results.append({"op": op, "library": lname, "dtype": t, "n": n, "w": w,
                                            "ms": None,
                                            "status": ("absent" if isinstance(e, NotImplementedError)
                                                       else "error"),
                                            "note": f"setup: {e}"})
                    x = y = None
                    lib.free()
                    continue
                copy_gbps = 2 * n * size / (copy_ms * 1e-3) / 1e9
                for op in ["copy"] + ops:
                    for w in op_widths(op, t, widths):
                        rec = {"op": op, "library": lname, "dtype": t, "n": n, "w": w,
                               "bytes": bytes_of(op, n, size), "copy_ms": copy_ms,
                               "copy_gbps": copy_gbps, "checked": checked.get((op, t, w)),
                               "ms": None, "status": "ok", "note": ""}
                        label = f"{lname} {op} {t} {size_label(n)}" + (f" w={w}" if w else "")
                        try:
                            if op in ("conv1d", "conv1d_host"):
                                m = lib.data(w, t, seed=2)
                            run = lib.op(op, x, y, m)
                            med, lo, hi, k = lib.timer(run, args.warmup, reps)
                            gbps = rec["bytes"] / (med * 1e-3) / 1e9
                            rec.update(ms=med, ms_min=lo, ms_max=hi, samples=k, gbps=gbps,
                                       copy_fraction=gbps / copy_gbps)
                            if op == "conv1d" and lname == "cupy":
                                rec["note"] = getattr(lib, "correlate_name", "") or ""
                            if op in ("sum", "cumsum") and t == "i32":
                                rec["note"] = ("sum accumulates in int64" if op == "sum"
                                               else "cumsum with dtype=int32")
                            log(f"{label}: {med:.4f} ms, {gbps:.0f} GB/s, {rec['copy_fraction']:.3f} x copy")
                        except NotImplementedError as e:
                            rec.update(status="absent", note=str(e))
                            log(f"{label}: absent ({e})")
                        except Exception as e:  # noqa: BLE001
                            rec.update(status="error", note=f"{type(e).__name__}: {e}")
                            log(f"{label}: error {e}")
                            if "--debug" in sys.argv:
                                traceback.print_exc()
                        results.append(rec)
                del x, y, m
                lib.free()
        del lib

    doc = {"schema": SCHEMA, "device": device or "none", "libraries": libraries,
           "settings": settings,
           "config": {"sizes": sizes, "types": types, "widths": widths, "ops": ops, "reps": reps,
                      "warmup": args.warmup, "min_sample_ms": MIN_SAMPLE_MS},
           "results": results}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    ok = sum(1 for r in results if r["status"] == "ok")
    log(f"{ok} of {len(results)} results ok in {time.time() - t0:.0f} s; wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
