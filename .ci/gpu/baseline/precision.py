#!/usr/bin/env python3
"""There (the GPU machine): how each number format rounds, measured on the GPU
against FP64, for Puzzle 33's page; writes results/precision/<gpu>.json.

    python3 .ci/gpu/baseline/precision.py

Two measurements, on inputs uniform in [-1, 1) (full mantissas, so rounding
shows), all computed on the GPU:

dot    4,096 dot products of length N at a time, N = 2^6 ... 2^16, for each
       way of computing them:
         - inputs rounded to FP32, TF32, BF16, FP16 or FP8 E4M3, products and
           sums in FP32, added one after the other (the way a thread's loop
           adds, and a tensor core's accumulator);
         - inputs and the running sum both in BF16 or FP16, rounded after
           every addition (what "accumulating in BF16" means).
       Two errors of each result, both |result - exact| / sum |a_k b_k|,
       their median and largest over the 4,096 kept: against the exact dot
       product of the inputs as drawn (`error`: what the format costs in all)
       and against that of the rounded inputs (`sum_error`: what the additions
       alone cost), both exact values in FP64.
gemm   cuBLAS's products through torch.mm at SIZE = 1024 ... 8192: FP32 with
       TF32 off, TF32, BF16 and FP16 (FP32 accumulation, the output in the
       input's type), each against an FP64 product of the same rounded inputs
       on 64 spread rows; the largest |error| over the largest |exact| output.
"""
import statistics

import common

torch = common.require_torch("measure rounding")

TRIALS = 4096
LENGTHS = [2**k for k in range(6, 17, 2)]
GEMM_SIZES = [1024, 2048, 4096, 8192]


def to_tf32(x):
    """x (FP32) rounded to TF32's 10 mantissa bits, to nearest even, as FP32."""
    bits = x.view(torch.int32)
    last = (bits >> 13) & 1
    return ((bits + 0xFFF + last) & ~0x1FFF).view(torch.float32)


def rounded(x, fmt):
    if fmt == "fp32":
        return x
    if fmt == "tf32":
        return to_tf32(x)
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp8_e4m3": torch.float8_e4m3fn}[fmt]
    return x.to(dtype).to(torch.float32)


def sequential(a, b, acc_dtype):
    """Row-wise dot products added in order, the sum rounded to acc_dtype each time."""
    acc = torch.zeros(a.shape[0], device="cuda", dtype=acc_dtype)
    for k in range(a.shape[1]):
        acc = (acc.float() + a[:, k] * b[:, k]).to(acc_dtype)
    return acc.double()


def dot_errors():
    ways = [(f, "fp32") for f in ("fp32", "tf32", "bf16", "fp16", "fp8_e4m3")]
    ways += [("bf16", "bf16"), ("fp16", "fp16")]
    dtype_of = {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}
    rows = []
    for n in LENGTHS:
        gen = torch.Generator(device="cuda").manual_seed(n)
        a = torch.rand(TRIALS, n, device="cuda", generator=gen) * 2 - 1
        b = torch.rand(TRIALS, n, device="cuda", generator=gen) * 2 - 1
        truth = (a.double() * b.double()).sum(1)
        scale = (a.double() * b.double()).abs().sum(1)
        for inputs, accumulate in ways:
            ra, rb = rounded(a, inputs), rounded(b, inputs)
            exact = (ra.double() * rb.double()).sum(1)
            got = sequential(ra, rb, dtype_of[accumulate])
            total = ((got - truth).abs() / scale).tolist()
            sums = ((got - exact).abs() / scale).tolist()
            rows.append({
                "length": n,
                "inputs": inputs,
                "accumulate": accumulate,
                "median_error": statistics.median(total),
                "max_error": max(total),
                "median_sum_error": statistics.median(sums),
                "max_sum_error": max(sums),
            })
            r = rows[-1]
            print(f"dot N={n:6d} inputs {inputs:8s} accumulate {accumulate}: error median "
                  f"{r['median_error']:.2e} max {r['max_error']:.2e}; sums alone median "
                  f"{r['median_sum_error']:.2e} max {r['max_sum_error']:.2e}", flush=True)
    return rows


def gemm_errors():
    ways = [("fp32", torch.float32, False), ("tf32", torch.float32, True),
            ("bf16", torch.bfloat16, False), ("fp16", torch.float16, False)]
    rows = []
    for size in GEMM_SIZES:
        gen = torch.Generator(device="cuda").manual_seed(size)
        a = torch.rand(size, size, device="cuda", generator=gen) * 2 - 1
        b = torch.rand(size, size, device="cuda", generator=gen) * 2 - 1
        picked = torch.linspace(0, size - 1, 64, device="cuda").long()
        for name, dtype, tf32 in ways:
            torch.backends.cuda.matmul.allow_tf32 = tf32
            ra, rb = a.to(dtype), b.to(dtype)
            out = torch.mm(ra, rb)
            torch.cuda.synchronize()
            exact = ra[picked].double() @ rb.double()
            error = ((out[picked].double() - exact).abs().max() / exact.abs().max()).item()
            rows.append({"size": size, "format": name, "max_error": error})
            print(f"gemm {size}: {name}: {error:.2e}", flush=True)
    torch.backends.cuda.matmul.allow_tf32 = False
    return rows


device = torch.cuda.get_device_name()
report = {
    **common.provenance(torch),
    "trials": TRIALS,
    "dot": dot_errors(),
    "gemm": gemm_errors(),
}
path = common.write_report(report, "results/precision", device)
print(f"wrote {path}")
