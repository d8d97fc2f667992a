#!/usr/bin/env python3
"""There (the GPU machine): time PyTorch's sum and inclusive scan of FP32
arrays, the baselines of Puzzle 17 (reduction) and Puzzle 18 (scan), and write
results/baselines/torch-algorithms-<gpu>.json.

    python3 .ci/gpu/baseline/algorithms.py

  sum     torch.sum(x), x of 2^28 and 2^30 floats      (Puzzle 17's bench sizes)
  cumsum  torch.cumsum(x, 0), x of 2^28 floats          (Puzzle 18's)

Both go to CUB on CUDA (its device-wide reduce and single-pass scan). Each is
timed like `runner bench` times a kernel: warm-up calls, then CUDA events
around each of 50 calls, the median. The inputs are the runner's bench inputs
of the chapter's last step at that size (`runner inputs`, through
common.runner_inputs): uniform in [-4, 4) with full mantissas, the same bytes
the book's kernels are timed on, so a page puts the two side by side. Every
step of each ladder takes its array in the same place, so one case serves the
whole ladder. The output is checked against the same operation in FP64, and
the error recorded is the largest difference over the largest output.
"""
import sys

import common

torch = common.require_torch("time its kernels")

SAMPLES, WARMUP = 50, 5
SUM_SIZES = [1 << 28, 1 << 30]
CUMSUM_SIZES = [1 << 28]


def timed(call):
    return common.timed(call, SAMPLES, WARMUP)


def sum_case(size):
    # Puzzle 17's steps 1 to 4 take [out, a, partials, size, count]: the
    # same inputs as step 4's, the one with a target.
    inp = common.runner_inputs(torch, "p17_reduce_vec4", SIZE=size)
    x = inp["a"]
    got = []
    timing = timed(lambda: got.append(torch.sum(x)))
    exact = x.double().sum()
    error = ((got[-1].double() - exact).abs() / exact.abs().clamp(min=1.0)).item()
    return {"name": "sum", "constants": {"SIZE": size}, "bytes": 4 * size, "timing": timing,
            "max_relative_error": error, **inp.stamp()}


def cumsum_case(size):
    # Puzzle 18's four steps take [out, a, ...] alike: step 4's inputs.
    inp = common.runner_inputs(torch, "p18_scan_async", SIZE=size)
    x = inp["a"]
    out = torch.empty_like(x)
    timing = timed(lambda: torch.cumsum(x, 0, out=out))
    exact = x.double().cumsum(0)
    error = ((out.double() - exact).abs().max() / exact.abs().max()).item()
    return {"name": "cumsum", "constants": {"SIZE": size}, "bytes": 8 * size, "timing": timing,
            "max_relative_error": error, **inp.stamp()}


cases = []
for case, sizes in [(sum_case, SUM_SIZES), (cumsum_case, CUMSUM_SIZES)]:
    for n in sizes:
        cases.append(case(n))
        # A case's arrays die with its call; their memory goes back before the next.
        torch.cuda.empty_cache()
device = torch.cuda.get_device_name()
report = {
    "library": "PyTorch (CUB)",
    **common.provenance(torch),
    "cases": cases,
}
bad = [f"{c['name']} at {c['constants']['SIZE']}" for c in cases if c["max_relative_error"] > 1e-4]
if bad:
    sys.exit(f"PyTorch's {', '.join(bad)} gave a wrong result on {device}: not recorded")
path = common.write_report(report, "results/baselines", f"torch-algorithms-{device}")
for c in cases:
    t = c["timing"]
    print(
        f"torch {c['name']} of {c['constants']['SIZE']} floats on {device}: median {t['median_ms']:.4f} ms "
        f"(min {t['min_ms']:.4f}, max {t['max_ms']:.4f}, n={t['samples']}), "
        f"{c['bytes'] / t['median_ms'] / 1e6:.1f} GB/s, error {c['max_relative_error']:.1e}"
    )
print(f"wrote {path}")
