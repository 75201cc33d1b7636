#!/usr/bin/env python3
"""The multi-GPU peer of gpu-dist's weak-scaling table: PyTorch distributed over NCCL, one
process per GPU, `per_gpu` f32 per GPU, on 1, 2, 4, ... of the visible GPUs:

- all_reduce of the whole tensor (what `torch.distributed.all_reduce` of the data costs),
- x.sum() then all_reduce of the one-element result (PyTorch's distributed sum),
- torch.cumsum of the local shard (PyTorch has no distributed cumsum: the local part alone).

Medians of 15 after 2 warm-ups; each timed call ends with torch.cuda.synchronize() and a
barrier, rank 0's wall clock. NVLink multicast stays off (NCCL_NVLS_ENABLE=0 is kept or set).
Usage: python3 scripts/peers_dist.py [--log2 30]
"""
import argparse
import os
import statistics
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def timed(fn):
    for _ in range(2):
        fn()
    out = []
    for _ in range(15):
        dist.barrier()
        torch.cuda.synchronize()
        t = time.perf_counter()
        fn()
        torch.cuda.synchronize()
        dist.barrier()
        out.append((time.perf_counter() - t) * 1e3)
    return statistics.median(out)


def worker(rank, world, per_gpu, port, results):
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    torch.cuda.set_device(rank)
    dist.init_process_group(
        "nccl", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=world,
        device_id=torch.device("cuda", rank),
    )
    x = torch.arange(per_gpu, device="cuda", dtype=torch.float32)
    y = x.clone()
    rows = {
        "all_reduce of the data": timed(lambda: dist.all_reduce(y)),
        "sum + all_reduce of the sum": timed(lambda: dist.all_reduce(x.sum().reshape(1))),
        "cumsum of the local shard": timed(lambda: torch.cumsum(x, 0)),
    }
    if rank == 0:
        results.update(rows)
    dist.barrier()
    dist.destroy_process_group()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--log2", type=int, default=30)
    a = p.parse_args()
    os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
    per_gpu = 1 << a.log2
    n = torch.cuda.device_count()
    counts = []
    k = 1
    while k <= n:
        counts.append(k)
        k *= 2
    if n not in counts:
        counts.append(n)
    print(f"# PyTorch {torch.__version__} distributed (NCCL), {per_gpu} f32 per GPU, "
          f"{torch.cuda.get_device_name(0)}")
    print("| operation | GPUs | ms | throughput / one GPU's |")
    print("| --- | ---: | ---: | ---: |")
    base = {}
    for i, k in enumerate(counts):
        with mp.Manager() as m:
            results = m.dict()
            mp.spawn(worker, args=(k, per_gpu, 29500 + i, results), nprocs=k, join=True)
            for what, ms in results.items():
                one = base.setdefault(what, ms)
                print(f"| {what} | {k} | {ms:.3f} | {k * one / ms:.2f} |", flush=True)


if __name__ == "__main__":
    main()
