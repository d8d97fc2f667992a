#!/usr/bin/env python3
"""There (the GPU machine): time cuBLAS's FP32 matrix product, the baseline the
SGEMM chapter is measured against, and write results/baselines/cublas-<gpu>.json.

    python3 .ci/gpu/baseline/cublas.py [SIZE ...]      (default 1024 2048 4096 8192)

cuBLAS is reached through PyTorch's torch.mm with TF32 switched off, so the
product is true FP32 on the CUDA cores, like the book's kernels. Each size is
timed like `runner bench` times a kernel: warm-up calls, then one pair of CUDA
events around each of 20 calls, and the median. The inputs are the runner's
bench inputs of the SGEMM ladder at that SIZE (`runner inputs`, through
common.runner_inputs): uniform in [-4, 4) with full mantissas, the same bytes
the book's kernels are timed on, so a page puts the two side by side. Every
step of the ladder takes a and b in the same places, so their inputs are the
same and this one case serves them all. The output is checked against an FP64
product of the same inputs on a spread of rows (full 24-bit mantissas, so
rounding shows; TF32 would show as an error near 1e-3).
"""
import sys

import common

torch = common.require_torch("time cuBLAS")

SAMPLES, WARMUP, CHECKED_ROWS = 20, 5, 256

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


# The ladder's last step; steps 1 to 9 all take [out, a, b, size], so each
# one's inputs at a SIZE have the same digest as this one's.
PUZZLE = "p19_sgemm_grouped"


def time_and_check(size):
    # Its first bench case at this SIZE: the other constants shape the
    # launch, not the inputs.
    inp = common.runner_inputs(torch, PUZZLE, SIZE=size)
    a, b = inp["a"], inp["b"]
    out = torch.empty(size, size, device="cuda")
    timing = common.timed(lambda: torch.mm(a, b, out=out), SAMPLES, WARMUP)
    rows = torch.linspace(0, size - 1, min(CHECKED_ROWS, size), device="cuda").long()
    exact = a[rows].double() @ b.double()
    error = ((out[rows].double() - exact).abs().max() / exact.abs().max()).item()
    return {
        "name": "sgemm",
        "constants": {"SIZE": size},
        "flops": 2 * size**3,
        "timing": timing,
        "max_relative_error": error,
        **inp.stamp(),
    }


sizes = [int(s) for s in sys.argv[1:]] or [1024, 2048, 4096, 8192]
device = torch.cuda.get_device_name()
cases = []
for s in sizes:
    cases.append(time_and_check(s))
    # A size's tensors die with its call; their memory goes back before the next.
    torch.cuda.empty_cache()
report = {
    "library": "cuBLAS (torch.mm, FP32, TF32 off)",
    **common.provenance(torch),
    "cases": cases,
}
path = common.write_report(report, "results/baselines", f"cublas-{device}")
for c in cases:
    t = c["timing"]
    print(
        f"cuBLAS SGEMM {c['constants']['SIZE']}^3 on {device}: median {t['median_ms']:.3f} ms "
        f"(min {t['min_ms']:.3f}, max {t['max_ms']:.3f}, n={t['samples']}), "
        f"{c['flops'] / t['median_ms'] / 1e6:.0f} GFLOP/s, max rel. error vs FP64 {c['max_relative_error']:.1e}"
    )
print(f"wrote {path}")
