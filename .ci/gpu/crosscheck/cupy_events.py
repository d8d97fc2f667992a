"""An independent timer for `runner bench`, as the issue names it: CuPy's
RawKernel (CuPy's own NVRTC build) on the same CUDA source, timed with CuPy's
CUDA events. Prints the median of 50 samples, in ms, after 5 warm-up runs.

    python3 cupy_events.py matmul_tiled SIZE INCLUDE_DIR...
    python3 cupy_events.py stream_copy FLOATS INCLUDE_DIR...
"""
import statistics
import sys

import cupy as cp

case, n, includes = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
options = ("--std=c++17",) + tuple(f"-I{d}" for d in includes)
if case == "matmul_tiled":
    source = open("kernels/algorithms/p14_matmul_tiled/matmul_tiled.cu").read()
    kernel = cp.RawKernel(source, "matmul_tiled", options=options)
    out = cp.zeros(n * n, dtype=cp.float32)
    a = cp.full(n * n, 0.25, dtype=cp.float32)
    b = cp.full(n * n, 0.5, dtype=cp.float32)
    blocks = (n + 2) // 3
    launch = lambda: kernel((blocks, blocks), (3, 3), (out, a, b, cp.uint32(n)))
elif case == "stream_copy":
    source = open("runner/engine/src/calibrate/ceilings.cu").read()
    kernel = cp.RawKernel(source, "stream_copy", options=options)
    out = cp.zeros(n, dtype=cp.float32)
    src = cp.ones(n, dtype=cp.float32)
    launch = lambda: kernel((4096,), (256,), (out, src, cp.uint32(n // 4)))
else:
    sys.exit(f"unknown case {case}")

for _ in range(5):
    launch()
cp.cuda.Device().synchronize()
samples = []
for _ in range(50):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    launch()
    end.record()
    end.synchronize()
    samples.append(cp.cuda.get_elapsed_time(start, end))
print(f"{statistics.median(samples):.6f}")
