#!/usr/bin/env python3
"""There (the GPU machine): time cuBLAS's tensor-core matrix products, the
baselines Part VI's GEMM ladder is measured against, and write
results/baselines/cublas-tensor-<gpu>.json, and cublas-fp8-<gpu>.json where
the GPU has FP8 tensor cores (compute capability 8.9 and up).

    python3 .ci/gpu/baseline/tensor.py [SIZE ...]      (default 4096 8192)

Two products at each SIZE, SIZE x SIZE x SIZE, through PyTorch's torch.mm:
  gemm_bf16   BF16 inputs and output, FP32 accumulation (cuBLAS picks a
              tensor-core kernel: on Hopper, wgmma), the product the book's
              BF16 kernels compute;
  gemm_tf32   FP32 inputs and output with TF32 allowed: the inputs are
              rounded to 10-bit mantissas on the way into the tensor cores.
And in the FP8 file, through torch._scaled_mm, the fastest products cuBLAS
has:
  gemm_fp8    e4m3 inputs with per-tensor scales, BF16 output, a row-major
              and b column-major (cuBLAS's FP8 takes only that "TN" layout);
  gemm_fp8_fast_accum  the same with use_fast_accum=True, where this
              PyTorch takes it: faster, its sums kept less precisely.
Each is timed like `runner bench` times a kernel: warm-up calls, then one
pair of CUDA events around each of 20 calls, the median. Each is checked
against an FP64 product of the same (rounded) inputs on a spread of rows, on
uniform inputs in [-1, 1] whose rounding shows (the FP8 ones in [-448, 448),
e4m3's whole range, with scales of 1/448 that bring them back): the error
recorded is the largest difference over the largest output.
"""
import sys

import common

torch = common.require_torch("time cuBLAS")

SAMPLES, WARMUP, CHECKED_ROWS = 20, 5, 256
# e4m3's largest finite value.
FP8_MAX = 448.0


def time_and_check(name, size, dtype, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    gen = torch.Generator(device="cuda").manual_seed(size)
    a = (torch.rand(size, size, device="cuda", generator=gen) * 2 - 1).to(dtype)
    b = (torch.rand(size, size, device="cuda", generator=gen) * 2 - 1).to(dtype)
    out = torch.empty(size, size, device="cuda", dtype=dtype)
    timing = common.timed(lambda: torch.mm(a, b, out=out), SAMPLES, WARMUP)
    rows = torch.linspace(0, size - 1, min(CHECKED_ROWS, size), device="cuda").long()
    exact = a[rows].double() @ b.double()
    torch.backends.cuda.matmul.allow_tf32 = False
    return case(name, size, timing, out[rows], exact)


def case(name, size, timing, got, exact):
    """A SIZE^3 product's record: its timing, and the largest difference of
    `got` from `exact` (FP64, the same rows) over the largest of `exact`."""
    error = ((got.double() - exact).abs().max() / exact.abs().max()).item()
    return {
        "name": name,
        "constants": {"SIZE": size},
        "flops": 2 * size**3,
        "timing": timing,
        "max_relative_error": error,
    }


def fp8_case(name, size, fast_accum):
    gen = torch.Generator(device="cuda").manual_seed(size)

    # Uniform over e4m3's whole range, so that every exponent it has is used.
    def e4m3():
        x = torch.rand(size, size, device="cuda", generator=gen) * 2 - 1
        return (x * FP8_MAX).to(torch.float8_e4m3fn)

    a = e4m3()
    # b column-major, a row-major matrix's transpose: cuBLAS's FP8 products
    # take both operands K-major (the "TN" layout), and _scaled_mm no other.
    b = e4m3().t()
    # Per-tensor scales, FP32 scalars, that bring the inputs back to [-1, 1):
    # the product is sum((a/448)(b/448)), as large as the BF16 product.
    scale_a = torch.tensor(1 / FP8_MAX, device="cuda", dtype=torch.float32)
    scale_b = torch.tensor(1 / FP8_MAX, device="cuda", dtype=torch.float32)
    # use_fast_accum lets cuBLAS keep the sums in the tensor cores' own
    # accumulator, which on Hopper keeps fewer bits than FP32, instead of
    # adding them into FP32 registers every few steps: faster, and less
    # precise. The plain product leaves the argument out, PyTorch's default.
    fast = {"use_fast_accum": True} if fast_accum else {}
    # It allocates its output (there is no out=); the caching allocator
    # makes that free after the first call.
    call = lambda: torch._scaled_mm(
        a, b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16, **fast
    )
    timing = common.timed(call, SAMPLES, WARMUP)
    out = call()
    # PyTorch before 2.4 answers (out, amax).
    if isinstance(out, tuple):
        out = out[0]
    rows = torch.linspace(0, size - 1, min(CHECKED_ROWS, size), device="cuda").long()
    # Widened to FP32 before the rows are picked (few kernels take e4m3),
    # exactly: e4m3's values are all FP32's too.
    exact_a = a.float()[rows].double() * scale_a.double()
    exact = exact_a @ (b.float().double() * scale_b.double())
    return case(name, size, timing, out[rows], exact)


def write(library, stem, cases):
    report = {"library": library, **common.provenance(torch), "cases": cases}
    path = common.write_report(report, "results/baselines", f"{stem}-{device}")
    for c in cases:
        t = c["timing"]
        print(
            f"cuBLAS {c['name']} {c['constants']['SIZE']}^3 on {device}: median {t['median_ms']:.4f} ms "
            f"(min {t['min_ms']:.4f}, max {t['max_ms']:.4f}, n={t['samples']}), "
            f"{c['flops'] / t['median_ms'] / 1e9:.0f} TFLOP/s, max rel. error vs FP64 {c['max_relative_error']:.1e}"
        )
    print(f"wrote {path}")


sizes = [int(s) for s in sys.argv[1:]] or [4096, 8192]
device = torch.cuda.get_device_name()
cases = []
for size in sizes:
    cases.append(time_and_check("gemm_bf16", size, torch.bfloat16, False))
    cases.append(time_and_check("gemm_tf32", size, torch.float32, True))
write("cuBLAS (torch.mm, tensor cores)", "cublas-tensor", cases)

# FP8 in a file of its own, so that cublas-tensor's keeps its cases, and
# after it, so that a GPU without FP8 still writes that one.
if torch.cuda.get_device_capability() < (8, 9) or not hasattr(torch, "_scaled_mm"):
    print(f"no FP8 product on {device} (PyTorch {torch.__version__}): cublas-fp8 not written")
else:
    cases = []
    for size in sizes:
        cases.append(fp8_case("gemm_fp8", size, False))
        # Where this PyTorch's _scaled_mm does not take use_fast_accum=True,
        # the file holds the plain product alone.
        try:
            cases.append(fp8_case("gemm_fp8_fast_accum", size, True))
        except (TypeError, RuntimeError) as e:
            print(f"cuBLAS gemm_fp8_fast_accum {size}^3 not timed on {device}: {e}")
    write("cuBLAS FP8 (torch._scaled_mm, e4m3, per-tensor scales, BF16 out)", "cublas-fp8", cases)
