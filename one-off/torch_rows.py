# PyTorch beside ours on the rows-of-1024 reductions (262144 x 1024, C order, dim 1), f32 and
# i32, with a device-to-device copy of the same input, timed with CUDA events as the shapes
# benchmark does (median of batched samples); x copy counts input + one value per row.
import torch, statistics
def t(f, reps=20):
    f(); torch.cuda.synchronize()
    s, e = torch.cuda.Event(True), torch.cuda.Event(True); out = []
    for _ in range(15):
        s.record()
        for _ in range(reps): f()
        e.record(); e.synchronize(); out.append(s.elapsed_time(e) / reps)
    return statistics.median(out)
print("| op | dtype | ms | x copy |\n| --- | --- | ---: | ---: |")
for dt, name in [(torch.float32, "f32"), (torch.int32, "i32")]:
    x = (torch.arange(1 << 28, device="cuda") % 7).to(dt).reshape(262144, 1024)
    y = torch.empty_like(x)
    copy = t(lambda: y.copy_(x)); n = x.numel() * 4
    for op, f in [("sum", lambda: torch.sum(x, dim=1, dtype=dt)), ("max", lambda: torch.amax(x, dim=1))]:
        ms = t(f); frac = ((n + 262144 * 4) / ms) / (2 * n / copy)
        print(f"| {op} | {name} | {ms:.3f} | {frac:.3f} |")
    print(f"| copy | {name} | {copy:.3f} | 1 |")
