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
pair of CUDA events around each of 20 calls, the median. gemm_bf16 and the
FP8 products are timed on the runner's bench inputs of the puzzle they are
compared with at that SIZE (`runner inputs`, through common.runner_inputs):
uniform in [-4, 4) with full mantissas, rounded to BF16 (p35_gemm_persistent,
whose a and b every BF16 step of the ladder shares), or uniform in
[-256, 256) rounded to e4m3 with the spec's per-tensor scales of 1/64
(p35_gemm_fp8, whose b comes transposed, `bt`): the same bytes the book's
kernels are timed on, so a page puts the two side by side. gemm_tf32, which
no page compares with a kernel, keeps inputs of its own, uniform in [-1, 1).
Each is checked against an FP64 product of the same (rounded) inputs on a
spread of rows: the error recorded is the largest difference over the
largest output.
"""
import sys

import common

torch = common.require_torch("time cuBLAS")

SAMPLES, WARMUP, CHECKED_ROWS = 20, 5, 256
# The puzzles whose bench inputs the products are timed on: the BF16
# ladder's last step (steps 1 to 6 and 8 take [out, a, b, size] alike, so
# their inputs have the same digest), and the FP8 step.
BF16_PUZZLE, FP8_PUZZLE = "p35_gemm_persistent", "p35_gemm_fp8"


def mm_case(name, size, a, b):
    """torch.mm(a, b) of two SIZE x SIZE matrices, timed and checked."""
    out = torch.empty(size, size, device="cuda", dtype=a.dtype)
    timing = common.timed(lambda: torch.mm(a, b, out=out), SAMPLES, WARMUP)
    rows = torch.linspace(0, size - 1, min(CHECKED_ROWS, size), device="cuda").long()
    exact = a[rows].double() @ b.double()
    return case(name, size, timing, out[rows], exact)


def bf16_case(size):
    inp = common.runner_inputs(torch, BF16_PUZZLE, SIZE=size)
    return {**mm_case("gemm_bf16", size, inp["a"], inp["b"]), **inp.stamp()}


def tf32_case(size):
    # No page compares this one with a kernel: its inputs are its own.
    gen = torch.Generator(device="cuda").manual_seed(size)
    a = torch.rand(size, size, device="cuda", generator=gen) * 2 - 1
    b = torch.rand(size, size, device="cuda", generator=gen) * 2 - 1
    torch.backends.cuda.matmul.allow_tf32 = True
    result = mm_case("gemm_tf32", size, a, b)
    torch.backends.cuda.matmul.allow_tf32 = False
    return result


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


def fp8_case(name, size, inp, fast_accum):
    """The FP8 product on p35_gemm_fp8's inputs `inp`, at SIZE `size`."""
    a = inp["a"]
    # The spec's bt is b transposed, row-major; its transpose is b itself,
    # column-major, without a copy: cuBLAS's FP8 products take both
    # operands K-major (the "TN" layout), and _scaled_mm no other.
    b = inp["bt"].t()
    # The spec's per-tensor scales (1/64), as the FP32 scalars _scaled_mm
    # takes: they bring the inputs back to [-4, 4).
    scale_a = torch.tensor(inp.scalars["scale_a"], device="cuda", dtype=torch.float32)
    scale_b = torch.tensor(inp.scalars["scale_b"], device="cuda", dtype=torch.float32)
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
    return {**case(name, size, timing, out[rows], exact), **inp.stamp()}


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
    cases.append(bf16_case(size))
    cases.append(tf32_case(size))
    # A case's tensors die with its call; their memory goes back before the next.
    torch.cuda.empty_cache()
write("cuBLAS (torch.mm, tensor cores)", "cublas-tensor", cases)

# FP8 in a file of its own, so that cublas-tensor's keeps its cases, and
# after it, so that a GPU without FP8 still writes that one.
if torch.cuda.get_device_capability() < (8, 9) or not hasattr(torch, "_scaled_mm"):
    print(f"no FP8 product on {device} (PyTorch {torch.__version__}): cublas-fp8 not written")
else:
    cases = []
    for size in sizes:
        # One set of inputs for both products at this size.
        inp = common.runner_inputs(torch, FP8_PUZZLE, SIZE=size)
        cases.append(fp8_case("gemm_fp8", size, inp, False))
        # Where this PyTorch's _scaled_mm does not take use_fast_accum=True,
        # the file holds the plain product alone.
        try:
            cases.append(fp8_case("gemm_fp8_fast_accum", size, inp, True))
        except (TypeError, RuntimeError) as e:
            print(f"cuBLAS gemm_fp8_fast_accum {size}^3 not timed on {device}: {e}")
        del inp
        torch.cuda.empty_cache()
    write("cuBLAS FP8 (torch._scaled_mm, e4m3, per-tensor scales, BF16 out)", "cublas-fp8", cases)
