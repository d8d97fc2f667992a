#!/usr/bin/env python3
"""There (the GPU machine): time cuBLAS's tensor-core matrix products, the
baselines Part VI's GEMM ladder is measured against, and write
results/baselines/cublas-tensor-<gpu>.json.

    python3 .ci/gpu/baseline/tensor.py [SIZE ...]      (default 4096 8192)

Two products at each SIZE, SIZE x SIZE x SIZE, through PyTorch's torch.mm:
  gemm_bf16   BF16 inputs and output, FP32 accumulation (cuBLAS picks a
              tensor-core kernel: on Hopper, wgmma), the product the book's
              BF16 kernels compute;
  gemm_tf32   FP32 inputs and output with TF32 allowed: the inputs are
              rounded to 10-bit mantissas on the way into the tensor cores.
Each is timed like `runner bench` times a kernel: warm-up calls, then one
pair of CUDA events around each of 20 calls, the median. Each is checked
against an FP64 product of the same (rounded) inputs on a spread of rows, on
uniform inputs in [-1, 1] whose rounding shows: the error recorded is the
largest difference over the largest output.
"""
import sys

import common

torch = common.require_torch("time cuBLAS")

SAMPLES, WARMUP, CHECKED_ROWS = 20, 5, 256


def time_and_check(name, size, dtype, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    gen = torch.Generator(device="cuda").manual_seed(size)
    a = (torch.rand(size, size, device="cuda", generator=gen) * 2 - 1).to(dtype)
    b = (torch.rand(size, size, device="cuda", generator=gen) * 2 - 1).to(dtype)
    out = torch.empty(size, size, device="cuda", dtype=dtype)
    timing = common.timed(lambda: torch.mm(a, b, out=out), SAMPLES, WARMUP)
    rows = torch.linspace(0, size - 1, min(CHECKED_ROWS, size), device="cuda").long()
    exact = a[rows].double() @ b.double()
    error = ((out[rows].double() - exact).abs().max() / exact.abs().max()).item()
    torch.backends.cuda.matmul.allow_tf32 = False
    return {
        "name": name,
        "constants": {"SIZE": size},
        "flops": 2 * size**3,
        "timing": timing,
        "max_relative_error": error,
    }


sizes = [int(s) for s in sys.argv[1:]] or [4096, 8192]
device = torch.cuda.get_device_name()
cases = []
for size in sizes:
    cases.append(time_and_check("gemm_bf16", size, torch.bfloat16, False))
    cases.append(time_and_check("gemm_tf32", size, torch.float32, True))
report = {
    "library": "cuBLAS (torch.mm, tensor cores)",
    **common.provenance(torch),
    "cases": cases,
}
path = common.write_report(report, "results/baselines", f"cublas-tensor-{device}")
for c in cases:
    t = c["timing"]
    print(
        f"cuBLAS {c['name']} {c['constants']['SIZE']}^3 on {device}: median {t['median_ms']:.4f} ms "
        f"(min {t['min_ms']:.4f}, max {t['max_ms']:.4f}, n={t['samples']}), "
        f"{c['flops'] / t['median_ms'] / 1e9:.0f} TFLOP/s, max rel. error vs FP64 {c['max_relative_error']:.1e}"
    )
print(f"wrote {path}")
