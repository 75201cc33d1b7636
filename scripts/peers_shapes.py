#!/usr/bin/env python3
"""peers_shapes.py — the shapes benchmark's operations with PyTorch and CuPy on the same GPU.

For every shape (rows x cols, 2^28 values in total by default), memory order (C, F) and axis:
sum, max and cumsum along the axis (torch.sum/amax/cumsum(dim=...), cupy.sum/max/cumsum(axis=...)),
f32 conv1d with a 7-wide mask along each axis of the C-order shapes (torch conv1d,
cupyx.scipy.ndimage.correlate1d);
and for the segment distributions (lengths 1-8, 1-2000, 16 segments of 2^24): segment sums
(torch.segment_reduce(..., "sum", lengths=...)). Timed with CUDA events exactly as the shapes
benchmark times ours (warm-up, then the median of samples batched to >= 0.2 ms), with a
device-to-device copy of the input in the same run. Byte model (as ours): reductions read the
input and write the result; cumsum reads and writes the input's size; segment sums also read the
offsets (8 bytes per segment).

    copy_fraction = (bytes / ms) / (2 * n * size / copy_ms)

Output: JSON {"schema": "gpu-prims-peers-shapes/1", "device": ..., "results": [
    {"op": "sum", "library": "torch", "dtype": "f32", "shape": [rows, cols], "order": "C",
     "axis": 1, "segments": null, "ms": ..., "copy_ms": ..., "bytes": ..., "copy_fraction": ...,
     "status": "ok"|"absent"|"error", "note": ""}, ...]}

Usage: python3 scripts/peers_shapes.py [--log2 28] [--types i32,f32,f16,bf16] [--libs torch,cupy]
                                       [--ops sum,max,cumsum,segment_sum] [--out peers-shapes.json]
                                       [--quick] [--no-conv]
"""

import argparse
import json
import math
import os
import statistics
import sys
import time

MIN_SAMPLE_MS = 0.2
MAX_BATCH = 200


def log(msg):
    print(f"peers_shapes: {msg}", file=sys.stderr, flush=True)


def shapes(log2):
    n = 1 << log2
    cols = [1 << (log2 // 2), 64, 4, 2, n // 64, 1024]
    return [(n // c, c) for c in cols]


# Untimed runs go on until this much wall time has passed (as the Rust benchmarks' GpuTiming):
# a GPU left idle for a second or more (a CPU check) needed more than a few runs to read at its
# steady speed again (docs/report.md). GPU_PRIMS_BENCH_WARMUP_MS sets it.
WARMUP_MS = float(os.environ.get("GPU_PRIMS_BENCH_WARMUP_MS", "200"))


def warm_up_for(run, event):
    t0 = time.perf_counter()
    while (time.perf_counter() - t0) * 1e3 < WARMUP_MS:
        run()
        event.record()
        event.synchronize()


def time_events(lib, run, warmup=3, reps=15):
    if lib == "torch":
        import torch
        new_event = lambda: torch.cuda.Event(enable_timing=True)
        elapsed = lambda a, b: a.elapsed_time(b)
    else:
        import cupy
        new_event = cupy.cuda.Event
        elapsed = lambda a, b: cupy.cuda.get_elapsed_time(a, b)
    start, stop = new_event(), new_event()
    run()  # first call (allocations, kernel selection)
    start.record()
    run()
    stop.record()
    stop.synchronize()
    one = elapsed(start, stop)
    if one > 50.0:
        return one  # slow (hundreds of ms): one timed run after the first call says enough
    for _ in range(warmup):
        run()
    warm_up_for(run, stop)
    # A time budget of about 1 s per case: slower operations get fewer samples (at least 3).
    reps = max(3, min(reps, int(1000.0 / max(one, 1e-3))))
    batch = 1 if one >= MIN_SAMPLE_MS else min(MAX_BATCH, max(1, math.ceil(MIN_SAMPLE_MS / max(one, 1e-4))))
    samples = []
    for _ in range(reps):
        start.record()
        for _ in range(batch):
            run()
        stop.record()
        stop.synchronize()
        samples.append(elapsed(start, stop) / batch)
    return statistics.median(samples)


def segment_lengths(kind, n, seed=7):
    import numpy as np
    rng = np.random.default_rng(seed)
    if kind == "16x2^24":
        return np.full(16, n // 16, dtype=np.int64)
    lo, hi = (1, 8) if kind == "1-8" else (1, 2000)
    lengths = rng.integers(lo, hi + 1, size=2 * n // (lo + hi) + 16, dtype=np.int64)
    total = np.cumsum(lengths)
    k = int(np.searchsorted(total, n))
    lengths = lengths[: k + 1].copy()
    lengths[-1] -= int(total[k]) - n
    if lengths[-1] <= 0:
        lengths = lengths[:-1]
        lengths[-1] += n - int(lengths.sum())
    return lengths


def torch_types():
    import torch
    return {"i32": torch.int32, "f32": torch.float32, "f16": torch.float16,
            "bf16": torch.bfloat16}


def run_lib(lib, args, out):
    try:
        if lib == "torch":
            import torch
            if not torch.cuda.is_available():
                raise ImportError("no GPU")
            xp = None
        else:
            import cupy as xp
            xp.cuda.runtime.getDeviceCount()
    except Exception as e:  # noqa: BLE001
        out.append({"library": lib, "status": "absent", "note": str(e)})
        return
    import numpy as np
    n = 1 << args.log2
    TORCH_TYPES = torch_types() if lib == "torch" else None
    for tname in args.types:
        size = 2 if tname in ("f16", "bf16") else 4
        if lib == "cupy" and tname == "bf16":
            out.append({"library": lib, "dtype": tname, "status": "absent",
                        "note": "CuPy has no bfloat16"})
            continue
        for rows, cols in shapes(args.log2):
            for order in ("C", "F"):
                if lib == "torch":
                    dt = TORCH_TYPES[tname]
                    base = torch.randint(-20, 21, (n,), device="cuda").to(dt)
                    x = base.view(rows, cols) if order == "C" else base.view(cols, rows).t()
                    copy_dst = torch.empty_like(base)
                    copy = lambda: copy_dst.copy_(base)
                else:
                    dt = {"i32": np.int32, "f32": np.float32, "f16": np.float16}[tname]
                    base = xp.random.randint(-20, 21, n).astype(dt)
                    x = base.reshape(rows, cols) if order == "C" else base.reshape(cols, rows).T
                    copy_dst = xp.empty_like(base)
                    copy = lambda: copy_dst.__setitem__(Ellipsis, base)
                copy_ms = time_events(lib, copy)
                for axis in (0, 1):
                    lanes = cols if axis == 0 else rows
                    for op in [o for o in ("sum", "max", "cumsum") if o in args.ops]:
                        if lib == "torch":
                            f = {"sum": lambda: torch.sum(x, dim=axis),
                                 "max": lambda: torch.amax(x, dim=axis),
                                 "cumsum": lambda: torch.cumsum(x, dim=axis, dtype=x.dtype)}[op]
                        else:
                            f = {"sum": lambda: xp.sum(x, axis=axis, dtype=x.dtype),
                                 "max": lambda: xp.max(x, axis=axis),
                                 "cumsum": lambda: xp.cumsum(x, axis=axis, dtype=x.dtype)}[op]
                        nbytes = n * size + (lanes * size if op != "cumsum" else n * size)
                        rec = {"op": op, "library": lib, "dtype": tname, "shape": [rows, cols],
                               "order": order, "axis": axis, "segments": None, "bytes": nbytes,
                               "copy_ms": copy_ms}
                        try:
                            ms = time_events(lib, f, reps=5 if args.quick else 15)
                            rec.update(ms=ms, status="ok", note="",
                                       copy_fraction=(nbytes / ms) / (2 * n * size / copy_ms))
                        except Exception as e:  # noqa: BLE001
                            rec.update(status="error", note=f"{type(e).__name__}: {e}"[:200])
                        out.append(rec)
                        save(args, out)
                        log(f"{lib} {op} {tname} {rows}x{cols} {order} axis {axis}: {rec.get('ms')} ms (copy {copy_ms:.4f} ms)")
                    if tname == "f32" and order == "C" and not args.no_conv:
                        conv_case(lib, xp, x, rows, cols, axis, n, copy_ms, args, out)
                del x, base, copy_dst
        # Segment sums (PyTorch only: CuPy has no segmented reduction).
        if lib == "torch" and "segment_sum" in args.ops:
            dt = TORCH_TYPES[tname]
            data = torch.randint(-20, 21, (n,), device="cuda").to(dt)
            copy_dst = torch.empty_like(data)
            copy_ms = time_events(lib, lambda: copy_dst.copy_(data))
            for kind in ("1-8", "1-2000", "16x2^24"):
                lengths = torch.from_numpy(segment_lengths(kind, n)).cuda()
                nbytes = n * size + lengths.numel() * (size + 8)
                rec = {"op": "segment_sum", "library": lib, "dtype": tname, "shape": None,
                       "order": None, "axis": None, "segments": kind, "bytes": nbytes,
                       "copy_ms": copy_ms}
                try:
                    if tname == "i32":
                        raise TypeError("torch.segment_reduce takes floating types only")
                    f = lambda: torch.segment_reduce(data, "sum", lengths=lengths)
                    ms = time_events(lib, f, reps=5 if args.quick else 15)
                    rec.update(ms=ms, status="ok", note="",
                               copy_fraction=(nbytes / ms) / (2 * n * size / copy_ms))
                except Exception as e:  # noqa: BLE001
                    rec.update(status="absent" if isinstance(e, TypeError) else "error",
                               note=f"{type(e).__name__}: {e}"[:200])
                out.append(rec)
                save(args, out)
                log(f"{lib} segment_sum {tname} {kind}: {rec.get('ms')} ms (copy {copy_ms:.4f} ms)")


CONV_MASK = [1.0, 2.0, 3.0, 4.0, 3.0, 2.0, 1.0]


def conv_case(lib, xp, x, rows, cols, axis, n, copy_ms, args, out):
    """conv1d along `axis` (same size, zeros outside, the 7-wide mask), as a user of each
    library writes it: PyTorch conv1d over (lanes, 1, length) rows (a contiguous copy first
    along axis 0), CuPy's cupyx.scipy.ndimage.correlate1d(axis=...)."""
    if lib == "torch":
        import torch
        import torch.nn.functional as F
        w = torch.tensor(CONV_MASK, device="cuda").view(1, 1, -1)
        if axis == 1:
            f = lambda: F.conv1d(x.view(rows, 1, cols), w, padding=3).view(rows, cols)
        else:
            f = lambda: F.conv1d(x.t().contiguous().view(cols, 1, rows), w, padding=3).view(cols, rows).t()
    else:
        import cupyx.scipy.ndimage as ndi
        w = xp.asarray(CONV_MASK, dtype=xp.float32)
        f = lambda: ndi.correlate1d(x, w, axis=axis, mode="constant")
    nbytes = 2 * n * 4
    rec = {"op": "conv1d_w7", "library": lib, "dtype": "f32", "shape": [rows, cols], "order": "C",
           "axis": axis, "segments": None, "bytes": nbytes, "copy_ms": copy_ms}
    try:
        ms = time_events(lib, f, reps=5 if args.quick else 15)
        rec.update(ms=ms, status="ok", note="", copy_fraction=copy_ms / ms)
    except Exception as e:  # noqa: BLE001
        rec.update(status="error", note=f"{type(e).__name__}: {e}"[:200])
    out.append(rec)
    save(args, out)
    log(f"{lib} conv1d_w7 f32 {rows}x{cols} C axis {axis}: {rec.get('ms')} ms (copy {copy_ms:.4f} ms)")


def save(args, results):
    """Writes what has been measured so far (a run cut short keeps its figures)."""
    with open(args.out, "w") as f:
        json.dump({"schema": "gpu-prims-peers-shapes/1", "device": args.device, "log2": args.log2,
                   "results": results}, f, indent=1)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--log2", type=int, default=28)
    p.add_argument("--types", default="i32,f32")
    p.add_argument("--libs", default="torch,cupy")
    p.add_argument("--out", default="peers-shapes.json")
    p.add_argument("--quick", action="store_true")
    p.add_argument("--no-conv", action="store_true", help="skip conv1d along axes")
    p.add_argument("--ops", default="sum,max,cumsum,segment_sum",
                   help="the operations to time (sum, max, cumsum, segment_sum)")
    args = p.parse_args()
    args.types = [t for t in args.types.split(",") if t]
    args.ops = [o for o in args.ops.split(",") if o]
    results = []
    device = None
    try:
        import torch
        device = torch.cuda.get_device_name(0)
    except Exception:  # noqa: BLE001
        pass
    args.device = device
    for lib in args.libs.split(","):
        run_lib(lib, args, results)
    save(args, results)
    log(f"wrote {args.out} ({len(results)} results)")


if __name__ == "__main__":
    main()
