"""There (the GPU machine): do the SGEMM kernels run at another speed when the
driver compiles their PTX (the runner's path) than when NVRTC's own ptxas
makes the machine code? Each kernel is compiled both ways from one source,
timed with CUDA events (median of 20 after 5) beside cuBLAS (cupy.matmul,
FP32) in the same process, and checked against it: the inputs are quarters,
so every sum is exact and the products must match bit for bit.
    python3 .ci/gpu/experiments/sgemm_jit.py
Other kernels, and sizes that are not multiples of the tiles, by argument:
    SIZES="4096 4100" python3 .ci/gpu/experiments/sgemm_jit.py \
        kernels/performance/p19_sgemm_thick/sgemm_thick.cu:sgemm_thick:BM=128,BN=128,BK=16,TM=8,TN=16,PAD=4
"""
import ctypes, glob, os, re, sys
import cupy as cp
import numpy as np

nvrtc = ctypes.CDLL(sorted(glob.glob("/usr/local/cuda*/targets/x86_64-linux/lib/libnvrtc.so.*"))[-1])
include = sorted(glob.glob("/usr/local/cuda*/targets/x86_64-linux/include"))[-1]


def compile_source(source, arch, cubin):
    """PTX for compute_90a, or a CUBIN for sm_90a, and ptxas's register count line."""
    prog = ctypes.c_void_p()
    assert nvrtc.nvrtcCreateProgram(ctypes.byref(prog), source.encode(), b"k.cu", 0, None, None) == 0
    opts = [f"--gpu-architecture={arch}", "--std=c++17", "--generate-line-info", f"--include-path={include}"]
    if cubin:
        opts.append("--ptxas-options=-v")
    array = (ctypes.c_char_p * len(opts))(*[o.encode() for o in opts])
    rc = nvrtc.nvrtcCompileProgram(prog, len(opts), array)
    size = ctypes.c_size_t()
    nvrtc.nvrtcGetProgramLogSize(prog, ctypes.byref(size))
    log = ctypes.create_string_buffer(size.value)
    nvrtc.nvrtcGetProgramLog(prog, log)
    assert rc == 0, log.value.decode()
    get_size, get = (nvrtc.nvrtcGetCUBINSize, nvrtc.nvrtcGetCUBIN) if cubin else (nvrtc.nvrtcGetPTXSize, nvrtc.nvrtcGetPTX)
    get_size(prog, ctypes.byref(size))
    image = ctypes.create_string_buffer(size.value)
    get(prog, image)
    regs = re.findall(r"Used \d+ registers", log.value.decode())
    return image.raw, (regs[0] if regs else "")


def timed(launch):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for run in range(25):
        start.record()
        launch()
        end.record()
        end.synchronize()
        if run >= 5:
            times.append(cp.cuda.get_elapsed_time(start, end))
    return float(np.median(times)), min(times), max(times)


STEP_5 = dict(BM=128, BN=128, BK=8, TM=8, TN=8)
DEFAULT_CASES = [
    ("kernels/performance/p19_sgemm_warptile/sgemm_warptile.cu", "sgemm_warptile", STEP_5),
    (".ci/gpu/experiments/sgemm_variants.cu", "sgemm", dict(STEP_5, PAD=0)),
    (".ci/gpu/experiments/sgemm_variants.cu", "sgemm", dict(BM=128, BN=128, BK=16, TM=8, TN=16, PAD=4)),
]


def parse_case(arg):
    """PATH:KERNEL:K=V,K=V into (path, kernel, constants)."""
    path, name, consts = arg.split(":")
    return path, name, {k: int(v) for k, v in (kv.split("=") for kv in consts.split(","))}


def compare(n, cases):
    rng = np.random.default_rng(1)
    a = cp.asarray(rng.integers(-8, 9, (n, n)).astype(np.float32) / 4)
    b = cp.asarray(rng.integers(-8, 9, (n, n)).astype(np.float32) / 4)
    want = a @ b
    median, lo, hi = timed(lambda: a @ b)
    print(f"{n}: cuBLAS (cupy.matmul) {median:.3f} ms ({lo:.3f}-{hi:.3f})")
    for path, name, consts in cases:
        source = open(path).read()
        for key, value in consts.items():
            source, count = re.subn(rf"^#define {key} \d+$", f"#define {key} {value}", source, flags=re.M)
            assert count == 1, (path, key)
        for arch, cubin in (("compute_90a", False), ("sm_90a", True)):
            image, regs = compile_source(source, arch, cubin)
            module = cp.cuda.function.Module()
            module.load(image)
            kernel = module.get_function(name)
            # The tiles as the compiled source has them, knobs left at their defaults included.
            tile = {key: int(re.search(rf"^#define {key} (\d+)$", source, flags=re.M).group(1)) for key in ("BM", "BN", "TM", "TN")}
            threads = (tile["BM"] // tile["TM"]) * (tile["BN"] // tile["TN"])
            out = cp.zeros_like(a)
            grid = (-(-n // tile["BN"]), -(-n // tile["BM"]))
            median, lo, hi = timed(lambda: kernel(grid, (threads,), (out, a, b, np.uint32(n))))
            ok = bool(cp.array_equal(out, want))
            tag = "CUBIN from NVRTC" if cubin else "PTX, driver JIT "
            print(f"{n}: {path} {consts} {tag}: {median:.3f} ms ({lo:.3f}-{hi:.3f}) {regs} {'exact' if ok else 'WRONG'}")


if __name__ == "__main__":
    cases = [parse_case(arg) for arg in sys.argv[1:]] or DEFAULT_CASES
    for n in map(int, os.environ.get("SIZES", "4096").split()):
        compare(n, cases)
