#!/usr/bin/env python3
"""There (the GPU machine, a host of several GPUs): NCCL's all-reduce and a
peer copy, for Part VII's kernels to be measured against. Writes
results/baselines/nccl-<N>-<gpu>.json, its device named "N × <gpu>" as the
engine names a run on N GPUs.

    NCCL_NVLS_ENABLE=0 python3 -m torch.distributed.run --nproc-per-node=N .ci/gpu/baseline/nccl.py [KIB ...]

(default sizes 64 KiB, 256 KiB, 1, 16, 256 and 1024 MiB of FP32, the sizes
of Part VII's `bench` cases). NVLink SHARP (NVLS) is left
off, as DEVICE.md says: the engine's kernels move data with loads and stores,
and NCCL's number to beat is its own ring or tree over the same links.

Each rank times every call between CUDA events after a barrier; a sample is
the slowest rank's time (one all-reduce finishes when its last rank does),
the median of 20 after 5 warm-up calls. Two cases per size:
  all_reduce   dist.all_reduce(x), SUM over FP32; bytes: nccl-tests' bus
               bytes, 2 (N - 1) / N of the buffer, the traffic each link carries
  peer_copy    rank r copies rank (r + 1) % N's buffer into its own over
               NVLink (torch's copy between devices, one process per GPU:
               dist.recv/send pairs); bytes: the buffer
Every result is checked: rank r fills its buffer with r + 1 (small integers,
exact in FP32), so the sum and the copy are known exactly.
"""
import os
import statistics
import sys

import common

torch = common.require_torch("time NCCL")
import torch.distributed as dist  # noqa: E402

SAMPLES, WARMUP = 20, 5


def main():
    dist.init_process_group("nccl")
    rank, ranks = dist.get_rank(), dist.get_world_size()
    torch.cuda.set_device(int(os.environ.get("LOCAL_RANK", rank)))
    sizes = [int(a) for a in sys.argv[1:]] or [64, 256, 1 << 10, 16 << 10, 256 << 10, 1 << 20]
    cases = []
    for kib in sizes:
        floats = kib << 8
        x = torch.empty(floats, device="cuda")
        exact_sum = ranks * (ranks + 1) / 2

        def fill():
            x.fill_(rank + 1.0)

        def all_reduce():
            dist.all_reduce(x)

        timing = timed_across_ranks(all_reduce, fill)
        fill()
        all_reduce()
        error = (x - exact_sum).abs().max().item() / exact_sum
        cases.append(case("all_reduce", floats, ranks, timing, floats * 4 * 2 * (ranks - 1) // ranks, error))

        mine = torch.full((floats,), rank + 1.0, device="cuda")
        got = torch.empty(floats, device="cuda")
        after, before = (rank + 1) % ranks, (rank - 1) % ranks

        def peer_copy():
            # Every rank sends to the rank before it and receives from the
            # one after: a ring of copies, all at once, as Puzzle 37's pulls.
            ops = [dist.P2POp(dist.isend, mine, before), dist.P2POp(dist.irecv, got, after)]
            for op in dist.batch_isend_irecv(ops):
                op.wait()

        timing = timed_across_ranks(peer_copy, lambda: None)
        error = (got - (after + 1.0)).abs().max().item() / (after + 1.0)
        cases.append(case("peer_copy", floats, ranks, timing, floats * 4, error))
        del x, mine, got
        torch.cuda.empty_cache()
    if rank == 0:
        gpu = torch.cuda.get_device_name()
        prov = common.provenance(torch)
        version = ".".join(str(v) for v in torch.cuda.nccl.version())
        report = {
            "library": f"NCCL {version} (torch.distributed, NVLS off)",
            "software": prov["software"],
            "device": f"{ranks} × {gpu}",
            "date": prov["date"],
            "cases": cases,
        }
        path = common.write_report(report, "results/baselines", f"nccl-{ranks}-{gpu}")
        for c in cases:
            gb = c["bytes"] / (c["timing"]["median_ms"] * 1e6)
            print(f"{c['name']:>10} {c['constants']['SIZE'] * 4 >> 10:>8} KiB  "
                  f"{c['timing']['median_ms']:.3f} ms  {gb:7.1f} GB/s  error {c['max_relative_error']:.1e}")
        print(f"wrote {path}")
    dist.destroy_process_group()


def timed_across_ranks(call, before):
    """`call` timed on every rank: each sample starts after a barrier, and is
    the slowest rank's time."""
    for _ in range(WARMUP):
        before()
        call()
    times = []
    for _ in range(SAMPLES):
        before()
        torch.cuda.synchronize()
        dist.barrier()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        end.synchronize()
        slowest = torch.tensor([start.elapsed_time(end)], device="cuda")
        dist.all_reduce(slowest, op=dist.ReduceOp.MAX)
        times.append(slowest.item())
    return {
        "clock": "device",
        "samples": SAMPLES,
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
    }


def case(name, floats, ranks, timing, bytes_moved, error):
    return {
        "name": name,
        "constants": {"SIZE": floats, "RANKS": ranks},
        "flops": 0,
        "bytes": bytes_moved,
        "timing": timing,
        "max_relative_error": error,
    }


main()
