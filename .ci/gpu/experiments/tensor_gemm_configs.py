#!/usr/bin/env python3
"""There (the GPU machine): the tile shapes Puzzle 35's tensor-core GEMMs
could use, each kernel compiled from the book's source with the constants
rewritten (as the runner does) through CuPy's NVRTC, checked against PyTorch
and timed with CUDA events beside cuBLAS's BF16 product, one line each. The
specs' `bench` entries are the fastest shapes this measured.

    [ONLY=gemm_wgmma] python3 .ci/gpu/experiments/tensor_gemm_configs.py [SIZE ...]   (default 4096 8192)

The inputs are multiples of 0.25 in [-4, 4], as in the book: their FP32 sums
are exact, so "wrong" counts outputs that differ at all from PyTorch's FP32
product rounded to BF16. Figures are medians of 20 runs after 3 warm-ups.
"""
import os
import re
import statistics
import sys

import cupy as cp
import torch

torch.backends.cuda.matmul.allow_tf32 = False
KERNELS = "kernels/tensor/"
# ONLY=gemm_wgmma,gemm_async: only those kernels.
ONLY = [k for k in os.environ.get("ONLY", "").split(",") if k]
# (file, kernel, constants): the shapes tried for each step.
SHAPES = [
    ("p35_gemm_wmma/gemm_wmma.cu", "gemm_wmma", dict(BM=64, BN=64, BK=32, WM=32, WN=32)),
    ("p35_gemm_wmma/gemm_wmma.cu", "gemm_wmma", dict(BM=128, BN=128, BK=32, WM=64, WN=32)),
    ("p35_gemm_wmma/gemm_wmma.cu", "gemm_wmma", dict(BM=128, BN=128, BK=32, WM=64, WN=64)),
    ("p35_gemm_mma/gemm_mma.cu", "gemm_mma", dict(BM=64, BN=64, BK=64, WM=32, WN=32)),
    ("p35_gemm_mma/gemm_mma.cu", "gemm_mma", dict(BM=128, BN=128, BK=64, WM=64, WN=32)),
    ("p35_gemm_mma/gemm_mma.cu", "gemm_mma", dict(BM=128, BN=128, BK=64, WM=64, WN=64)),
] + [
    ("p35_gemm_async/gemm_async.cu", "gemm_async",
     dict(BM=bm, BN=bn, BK=64, STAGES=stages, WM=64, WN=wn))
    for stages in (3, 4)
    for (bm, bn, wn) in [(128, 128, 32), (128, 128, 64), (128, 256, 64), (256, 128, 64)]
]
# Step 4: a warpgroup of 128 threads per 64 rows; the tiles start on a 1 KiB
# boundary, which the dynamic shared memory may need up to 1 KiB to reach.
WGMMA = [
    ("p35_gemm_wgmma/gemm_wgmma.cu", "gemm_wgmma",
     dict(BM=bm, BN=bn, BK=64, STAGES=stages, IN_FLIGHT=in_flight))
    for in_flight in (0, 1)
    for (bm, bn, stages) in [(128, 128, 4), (128, 256, 3), (128, 256, 4), (256, 128, 3), (256, 128, 4)]
]

# Not a step of the book: step 4 with its warps specialised, one warpgroup
# copying with cp.async and CONSUMERS warpgroups of 64 rows multiplying, the
# two sides passing buffers through mbarriers (Puzzle 34) instead of
# __syncthreads(). Its source is beside this script.
SPECIALIZED = [
    ("../.ci/gpu/experiments/gemm_specialized.cu", "gemm_specialized",
     dict(BN=bn, BK=64, STAGES=stages, CONSUMERS=consumers))
    for (bn, stages, consumers) in [(256, 4, 2), (256, 3, 2), (128, 6, 2), (128, 4, 2)]
]


def rows(c):
    """The block's rows of out: BM, or 64 a consumer warpgroup."""
    return c["BM"] if "BM" in c else c["CONSUMERS"] * 64


def launch_shape(name, c):
    """Threads a block and bytes of dynamic shared memory, as the specs give them."""
    tiles = c.get("STAGES", 0) * (rows(c) * c["BK"] + c["BK"] * c["BN"]) * 2
    if name == "gemm_wgmma":
        return c["BM"] // 64 * 128, tiles + 1024
    if name == "gemm_specialized":
        return (c["CONSUMERS"] + 1) * 128, tiles + 1024
    return (c["BM"] // c["WM"]) * (c["BN"] // c["WN"]) * 32, tiles


def build(path, name, constants):
    source = open(path).read()
    for key, value in constants.items():
        source, n = re.subn(rf"^#define {key} \d+$", f"#define {key} {value}", source, flags=re.M)
        assert n == 1, f"{path} has no `#define {key} N`"
    # sm_90a: step 4's wgmma exists only there (what the runner targets on Hopper).
    options = ("--std=c++17", "-arch=sm_90a", "-I/usr/local/cuda/include")
    return cp.RawModule(code=source, options=options, backend="nvrtc").get_function(name)


def median_ms(call, reps=20):
    for _ in range(3):
        call()
    times = []
    for _ in range(reps):
        start, end = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def quarters(size, gen):
    return ((torch.randint(0, 33, (size, size), device="cuda", generator=gen) - 16) / 4).to(torch.bfloat16)


def main():
    print(torch.cuda.get_device_name())
    for size in map(int, sys.argv[1:] or ["4096", "8192"]):
        gen = torch.Generator(device="cuda").manual_seed(1)
        a, b = quarters(size, gen), quarters(size, gen)
        out = torch.empty(size, size, device="cuda", dtype=torch.bfloat16)
        want = (a.float() @ b.float()).to(torch.bfloat16)
        library = median_ms(lambda: torch.mm(a, b))
        print(f"SIZE {size}: cuBLAS BF16 {library:.4f} ms, {2 * size**3 / library / 1e9:.0f} TFLOP/s")
        views = [cp.asarray(t.view(torch.int16)) for t in (out, a, b)]
        for path, name, c in SHAPES + WGMMA + SPECIALIZED:
            if size % rows(c) or size % c["BN"] or (ONLY and name not in ONLY):
                continue
            threads, shared = launch_shape(name, c)
            kernel = build(KERNELS + path, name, c)
            if shared > 48 * 1024:
                kernel.max_dynamic_shared_size_bytes = shared
            grid = (size // c["BN"], size // rows(c))
            call = lambda: kernel(grid, (threads,), (*views, cp.uint32(size)), shared_mem=shared)
            out.zero_()
            call()
            wrong = (out.float() != want.float()).sum().item()
            ms = median_ms(call)
            print(f"  {name} {c}: wrong {wrong}, {ms:.4f} ms, "
                  f"{2 * size**3 / ms / 1e9:.0f} TFLOP/s, {library / ms * 100:.1f}% of cuBLAS")


main()
