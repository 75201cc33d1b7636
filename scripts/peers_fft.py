#!/usr/bin/env python3
"""peers_fft.py — the peers of gpu-conv1d's FFT path, by mask width, on the GPU it runs on: a
'same' correlation (zero padding) of a 2^k-element signal (k = 26 unless --log2) with masks of
--widths, f32 and f64, beside a device-to-device copy of the signal in the same run:

  torch   torch.nn.functional.conv1d(x, m, padding='same') (1 channel; cuDNN's choice)
  cupy    cupyx.scipy.signal.convolve(x, m[::-1], 'same', method='direct' | 'fft' | 'auto'),
          fftconvolve and oaconvolve (the same correlation through FFTs)

Times are CUDA-event medians (5 after one warm-up; one timed call where a call takes over
0.25 s). Prints tab-separated lines: lib, type, width, method, µs, ×copy.

    python3 scripts/peers_fft.py [--log2 26] [--widths 3,31,...] [--types f32,f64]
"""
import argparse
import sys


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def median_us(new_event, elapsed_ms, run):
    a, b = new_event(), new_event()
    run()
    a.record()
    run()
    b.record()
    b.synchronize()
    first = elapsed_ms(a, b)
    reps = 1 if first > 250 else 5
    times = [first]
    for _ in range(reps - 1):
        a.record()
        run()
        b.record()
        b.synchronize()
        times.append(elapsed_ms(a, b))
    times.sort()
    return 1e3 * times[len(times) // 2]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--log2", type=int, default=26)
    ap.add_argument("--widths", default="3,7,15,31,63,95,127,191,255,383,511,767,1023,2047,"
                    "4095,8191,15361,16383,65535")
    ap.add_argument("--full", type=int, default=0,
                    help="instead: full correlation of two f32 signals of 2^k (CuPy's "
                    "fftconvolve and correlate(method='fft'))")
    ap.add_argument("--types", default="f32,f64")
    ap.add_argument("--torch-max", type=int, default=4095,
                    help="largest width timed for PyTorch (its direct kernels take seconds past it)")
    a = ap.parse_args()
    if a.full:
        return full(a.full)
    n = 1 << a.log2
    widths = [int(w) for w in a.widths.split(",")]
    print("lib\ttype\tw\tmethod\tus\txcopy")
    try:
        import torch
        log(f"torch {torch.__version__} on {torch.cuda.get_device_name(0)}")
        ev = lambda: torch.cuda.Event(enable_timing=True)  # noqa: E731
        el = lambda x, y: x.elapsed_time(y)  # noqa: E731
        for t in a.types.split(","):
            dt = {"f32": torch.float32, "f64": torch.float64}[t]
            x = (torch.rand(n, device="cuda", dtype=torch.float64) * 2 - 1).to(dt)
            y = torch.empty_like(x)
            copy = median_us(ev, el, lambda: y.copy_(x))
            print(f"torch\t{t}\t-\tcopy\t{copy:.1f}\t1.000")
            xv = x.view(1, 1, n)
            for w in widths:
                if w > a.torch_max:
                    continue
                m = (torch.rand(w, device="cuda", dtype=torch.float64) * 2 - 1).to(dt).view(1, 1, w)
                us = median_us(ev, el, lambda: torch.nn.functional.conv1d(xv, m, padding="same"))
                print(f"torch\t{t}\t{w}\tconv1d\t{us:.1f}\t{copy / us:.4f}", flush=True)
            del x, y, xv
            torch.cuda.empty_cache()
    except Exception as e:  # noqa: BLE001
        log(f"torch: {e}")
    try:
        import cupy as cp
        from cupyx.scipy import signal
        log(f"cupy {cp.__version__}")
        ev = lambda: cp.cuda.Event()  # noqa: E731
        el = lambda x, y: cp.cuda.get_elapsed_time(x, y)  # noqa: E731
        for t in a.types.split(","):
            dt = {"f32": cp.float32, "f64": cp.float64}[t]
            x = (cp.random.random(n, dtype=cp.float64) * 2 - 1).astype(dt)
            y = cp.empty_like(x)
            copy = median_us(ev, el, lambda: y.__setitem__(slice(None), x))
            print(f"cupy\t{t}\t-\tcopy\t{copy:.1f}\t1.000")
            for w in widths:
                m = (cp.random.random(w, dtype=cp.float64) * 2 - 1).astype(dt)[::-1].copy()
                methods = {
                    "fft": lambda: signal.convolve(x, m, mode="same", method="fft"),
                    "auto": lambda: signal.convolve(x, m, mode="same", method="auto"),
                    "fftconvolve": lambda: signal.fftconvolve(x, m, mode="same"),
                    "oaconvolve": lambda: signal.oaconvolve(x, m, mode="same"),
                }
                if w <= 255:
                    methods["direct"] = lambda: signal.convolve(x, m, mode="same", method="direct")
                for name, run in methods.items():
                    try:
                        us = median_us(ev, el, run)
                        print(f"cupy\t{t}\t{w}\t{name}\t{us:.1f}\t{copy / us:.4f}", flush=True)
                    except Exception as e:  # noqa: BLE001
                        log(f"cupy {name} w {w}: {e}")
                    cp.get_default_memory_pool().free_all_blocks()
    except Exception as e:  # noqa: BLE001
        log(f"cupy: {e}")


def full(k):
    """The full correlation of two f32 signals of 2^k through CuPy's FFT paths."""
    import cupy as cp
    from cupyx.scipy import signal
    n = 1 << k
    ev = lambda: cp.cuda.Event()  # noqa: E731
    el = lambda x, y: cp.cuda.get_elapsed_time(x, y)  # noqa: E731
    a = (cp.random.random(n, dtype=cp.float64) * 2 - 1).astype(cp.float32)
    b = (cp.random.random(n, dtype=cp.float64) * 2 - 1).astype(cp.float32)
    rb = b[::-1].copy()
    src = cp.zeros(2 * n - 1, dtype=cp.float32)
    dst = cp.empty_like(src)
    copy = median_us(ev, el, lambda: dst.__setitem__(slice(None), src))
    print("lib\ttype\tn\tmethod\tus\txcopy")
    print(f"cupy\tf32\t{n}\tcopy of {2 * n - 1}\t{copy:.1f}\t1.000")
    for name, run in {
        "fftconvolve(a, b reversed)": lambda: signal.fftconvolve(a, rb, mode="full"),
        "correlate(method=fft)": lambda: signal.correlate(a, b, mode="full", method="fft"),
    }.items():
        us = median_us(ev, el, run)
        print(f"cupy\tf32\t{n}\t{name}\t{us:.1f}\t{copy / us:.4f}", flush=True)
        cp.get_default_memory_pool().free_all_blocks()


if __name__ == "__main__":
    main()
