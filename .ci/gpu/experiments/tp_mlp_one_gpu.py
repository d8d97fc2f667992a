"""There (the GPU machine, one GPU is enough): Puzzle 40's products and its
overlapped kernel on one rank, to see what fusing costs the products before
a host of several GPUs times the layer. With one rank the all-reduce is a
local copy, so the fused kernel's time is its products' time beside summing
blocks that take a multiprocessor slot each: what the overlap can cost the
arithmetic, without the links.

    python3 .ci/gpu/experiments/tp_mlp_one_gpu.py [HID ...]

Every kernel is compiled by NVRTC (PTX, as the runner does) from the book's
sources (step 1's kernel also with tp_mlp_waits.cuh's ways to wait), timed with CUDA events (median of 20 after 5
warm-up runs, min and max beside it), and its output checked against NumPy
in FP64. A configuration whose blocks cannot all be resident at once (its
blocks wait for each other, so it would hang) is reported and skipped.
"""
import ctypes
import datetime
import functools
import glob
import os
import re
import sys

import cupy as cp
import numpy as np

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
nvrtc = ctypes.CDLL(sorted(glob.glob("/usr/local/cuda*/targets/x86_64-linux/lib/libnvrtc.so.*"))[-1])
include = sorted(glob.glob("/usr/local/cuda*/targets/x86_64-linux/include"))[-1]
cuda = ctypes.CDLL("libcuda.so.1")
ROWS, DIM, CHUNK = 8192, 2048, 512


def inlined(path, seen=None):
    """The file with its quoted #includes written in, as the runner does."""
    seen = set() if seen is None else seen
    out = []
    for line in open(path):
        m = re.match(r'\s*#include "([^"]+)"', line)
        if m:
            target = os.path.normpath(os.path.join(os.path.dirname(path), m.group(1)))
            if target not in seen:
                seen.add(target)
                out.append(inlined(target, seen))
            continue
        out.append(line)
    return "".join(out)


@functools.lru_cache(maxsize=None)
def compile_ptx(source):
    """PTX for compute_90, once a source (the cases share sources across hidden sizes)."""
    prog = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"k.cu", 0, None, None) == 0
    # CUDA 13 keeps CCCL (cuda/atomic) under include/cccl.
    opts = ["--gpu-architecture=compute_90", "--std=c++17", f"--include-path={include}/cccl",
            f"--include-path={include}"]
    array = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), array)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    assert rc == 0, log.value.decode()
    nvrtc.nvrtcGetPTXSize(prog, ctypes.byref(size))
    image = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetPTX(prog, image)
    return image.raw


class Module:
    def __init__(self, source):
        cp.zeros(1)  # the primary context, current on this thread
        self.handle = ctypes.c_void_p()
        ptx = compile_ptx(source)
        assert cuda.cuModuleLoadData(ctypes.byref(self.handle), ptx) == 0

    def function(self, name):
        f = ctypes.c_void_p()
        assert cuda.cuModuleGetFunction(ctypes.byref(f), self.handle, name.encode()) == 0, name
        return f


# Step 1's two waits, as its kernel writes them, and as wait_at_least says them.
STEP1_WAITS = [
    ("""                DeviceCounter mine(tiles[c]);
                while (mine.load(cuda::memory_order_acquire) < run * chunk_tiles) {
                }
""", """                wait_at_least(DeviceCounter(tiles[c]), run * chunk_tiles, cuda::thread_scope_device);
"""),
    ("""                    SystemCounter theirs(ready.rank[rank][c * ranks + p]);
                    while (theirs.load(cuda::memory_order_acquire) < run) {
                    }
""", """                    wait_at_least(SystemCounter(ready.rank[rank][c * ranks + p]), run,
                                  cuda::thread_scope_system);
"""),
]
STEP1_KERNEL = 'extern "C" __global__ void down_all_reduce('


def step1_waiting(book, waits, defines):
    """Step 1's kernel with tp_mlp_waits.cuh's waits and `defines` (MIN_BLOCKS, POLL_RELAXED, SLEEP_NS)."""
    head = "".join(f"#define {k} {v}\n" for k, v in defines.items())
    source = book.replace(STEP1_KERNEL, head + waits + 'extern "C" __global__ void BOUNDS down_all_reduce(')
    for find, replace in STEP1_WAITS:
        assert source.count(find) == 1, find
        source = source.replace(find, replace)
    return source


def registers(f):
    n = ctypes.c_int()
    cuda.cuFuncGetAttribute(ctypes.byref(n), 4, f)  # CU_FUNC_ATTRIBUTE_NUM_REGS
    return n.value


def resident(f, threads=256):
    """How many blocks of `threads` fit on the whole GPU at once."""
    per_sm = ctypes.c_int()
    cuda.cuOccupancyMaxActiveBlocksPerMultiprocessor(ctypes.byref(per_sm), f, threads, 0)
    return per_sm.value * cp.cuda.Device().attributes["MultiProcessorCount"], per_sm.value


def arg(v):
    if isinstance(v, cp.ndarray):
        return ctypes.c_uint64(v.data.ptr)
    if isinstance(v, list):  # a peer table: 8 addresses
        table = (ctypes.c_uint64 * 8)(*([a.data.ptr for a in v] + [0] * (8 - len(v))))
        return table
    return ctypes.c_uint32(v)


def launch(f, grid, args, threads=256):
    held = [arg(a) for a in args]
    params = (ctypes.c_void_p * len(held))(*[ctypes.cast(ctypes.pointer(h), ctypes.c_void_p) for h in held])
    rc = cuda.cuLaunchKernel(f, grid, 1, 1, threads, 1, 1, 0, None, params, None)
    assert rc == 0, rc


def timed(run):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for i in range(25):
        start.record()
        run()
        end.record()
        end.synchronize()
        if i >= 5:
            times.append(cp.cuda.get_elapsed_time(start, end) * 1000)
    return float(np.median(times)), min(times), max(times)


def report(name, t, got, want):
    err = float(cp.max(cp.abs(got - want)) / cp.max(cp.abs(want)))
    flag = "" if err < 1e-4 else f"  WRONG (max error {err:.2e})"
    print(f"| {name} | {t[0]:.1f} | {t[1]:.1f}-{t[2]:.1f} |{flag}", flush=True)


def main():
    hids = [int(a) for a in sys.argv[1:]] or [64, 16]
    book = inlined(os.path.join(ROOT, "kernels/multigpu/p40_tp_mlp_overlapped/tp_mlp_overlapped.cu"))
    waits = open(os.path.join(ROOT, ".ci/gpu/experiments/tp_mlp_waits.cuh")).read()
    print(f"# python3 .ci/gpu/experiments/tp_mlp_one_gpu.py {' '.join(sys.argv[1:])}"
          f"  ({datetime.date.today()})\n")
    print(f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, one rank, "
          f"{ROWS} rows x {DIM}, chunks of {CHUNK} rows; times in us (median, min-max of 20)\n")
    rng = np.random.default_rng(1)
    for hid in hids:
        x = cp.asarray(rng.uniform(-1, 1, (ROWS, DIM)).astype(np.float32))
        w1 = cp.asarray(rng.uniform(-1, 1, (DIM, hid)).astype(np.float32) / 16)
        w2 = cp.asarray(rng.integers(0, 4, (hid, DIM)).astype(np.float32))
        pre = x.astype(cp.float64) @ w1.astype(cp.float64)
        hh = 0.5 * pre * (1 + cp.tanh(0.7978845608 * (pre + 0.044715 * pre ** 3)))
        want = (hh @ w2.astype(cp.float64)).astype(cp.float32)
        h = cp.zeros((ROWS, hid), cp.float32)
        z = cp.zeros((ROWS, DIM), cp.float32)
        out = cp.zeros((ROWS, DIM), cp.float32)
        chunks = (ROWS + CHUNK - 1) // CHUNK
        print(f"### hidden size {hid} a rank\n\n| kernel | median | min-max |\n| --- | ---: | ---: |")
        m = Module(book)
        up, down = m.function("up"), m.function("down")
        up_grid = (ROWS + 15) // 16 * ((hid + 15) // 16)
        down_grid = (ROWS + 15) // 16 * ((DIM + 15) // 16)
        t = timed(lambda: launch(up, up_grid, [h, x, w1, ROWS, DIM, hid]))
        report("step 1: up (16 x 16 tiles)", t, h, hh.astype(cp.float32))
        t = timed(lambda: launch(down, down_grid, [z, h, w2, ROWS, DIM, hid]))
        report("step 1: down", t, z, want)
        t = timed(lambda: (launch(up, up_grid, [h, x, w1, ROWS, DIM, hid]),
                           launch(down, down_grid, [z, h, w2, ROWS, DIM, hid])))
        report("step 1: compute (up, down)", t, z, want)
        relaxed = {"POLL_RELAXED": 1, "SLEEP_NS": 200}
        persistent = [
            # (label, defines for tp_mlp_waits.cuh, or None: the book's kernel as it is,
            #  gemm blocks, summing blocks)
            ("step 1's kernel", None, 528, 132),
            ("step 1's kernel, its GEMM blocks alone", None, 528, 0),
            ("step 1's kernel, relaxed polls and 200 ns sleeps", relaxed, 528, 132),
            ("step 1's kernel, 200 ns sleeps in its acquire polls", {"SLEEP_NS": 200}, 528, 132),
            ("step 1's kernel, relaxed polls, 8 blocks a multiprocessor", dict(relaxed, MIN_BLOCKS=8), 924, 132),
            ("step 1's kernel, 8 blocks a multiprocessor, GEMM blocks alone", dict(relaxed, MIN_BLOCKS=8),
             924, 0),
        ]
        for label, defines, gemm, red in persistent:
            source = book if defines is None else step1_waiting(book, waits, defines)
            f = Module(source).function("down_all_reduce")
            fits, per_sm = resident(f)
            name = f"{label}: {gemm} + {red} blocks, {registers(f)} registers"
            if gemm + red > fits:
                print(f"| {name} | does not fit ({per_sm} a multiprocessor) | |")
                continue
            tiles, ready, arrived = (cp.zeros(chunks, cp.uint32), cp.zeros(chunks, cp.uint32),
                                     cp.zeros(1, cp.uint32))
            runs = cp.zeros(gemm + red, cp.uint32)
            out.fill(0)
            args = [out, z, h, w2, [z], tiles, [ready], [arrived], runs, 0, 1, ROWS, DIM, hid, CHUNK, gemm]
            t = timed(lambda: launch(f, gemm + red, args))
            report(name, t, out if red else z, want)
            if defines is None and red:
                t = timed(lambda: (launch(up, up_grid, [h, x, w1, ROWS, DIM, hid]), launch(f, gemm + red, args)))
                report("step 1: up, then that", t, out, want)
        step2 = inlined(os.path.join(ROOT, "kernels/multigpu/p40_tp_mlp_overlapped_grid/"
                                      "tp_mlp_overlapped_grid.cu"))
        all_tiles = (ROWS + 15) // 16 * ((DIM + 15) // 16)
        for per_block, red in [(1, 132), (2, 132), (4, 132), (8, 132), (16, 132), (4, 66), (4, 0), (1, 0)]:
            source, count = re.subn(r"^#define TILES \d+$", f"#define TILES {per_block}", step2, flags=re.M)
            assert count == 1
            f = Module(source).function("down_all_reduce")
            grid = red + (all_tiles + per_block - 1) // per_block
            nxt, tiles, ready, arrived = (cp.zeros(1, cp.uint32), cp.zeros(chunks, cp.uint32),
                                          cp.zeros(chunks, cp.uint32), cp.zeros(1, cp.uint32))
            out.fill(0)
            args = [out, z, h, w2, [z], nxt, tiles, [ready], [arrived], 0, 1, ROWS, DIM, hid, CHUNK, red]
            name = (f"step 2's kernel, {per_block} tiles a GEMM block, {red} summing blocks, "
                    f"{registers(f)} registers")
            t = timed(lambda: launch(f, grid, args))
            report(name, t, out if red else z, want)
            if (per_block, red) == (4, 132):
                t = timed(lambda: (launch(up, up_grid, [h, x, w1, ROWS, DIM, hid]), launch(f, grid, args)))
                report("step 2 at 4 tiles a block: up, then that", t, out, want)
        print()


if __name__ == "__main__":
    main()
