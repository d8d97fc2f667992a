"""What the baseline scripts share: a library call timed the way `runner
bench` times a kernel, and a report written under the name `runner record`
would give it. Imported by the scripts beside it (Python puts a script's own
folder first on its path).
"""
import json
import os
import re
import statistics


def timed(call, samples, warmup):
    """`warmup` calls, then one pair of CUDA events around each of `samples`
    calls; the median, fastest and slowest, in the recordings' schema."""
    import torch

    for _ in range(warmup):
        call()
    times = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return {
        "clock": "device",
        "samples": samples,
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
    }


def write_report(report, folder, name):
    """Writes `report` as folder/<name>.json, the name in lower case with runs
    of other characters as one dash (runner record's file naming); returns
    the path."""
    os.makedirs(folder, exist_ok=True)
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    path = f"{folder}/{stem}.json"
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    return path
