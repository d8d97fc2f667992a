#!/usr/bin/env python3
"""There (the GPU machine): the book's own CUDA kernel and the library it is
measured against, launched from one Python program on the same input
buffers and timed alternately, then set beside what `runner record`
recorded for the kernel. Writes results/same-process/<gpu>.json
and prints a markdown table.

    python3 .ci/gpu/baseline/same_process.py [--only p35_gemm_persistent,...] [--rounds 5] [--per-round 20]

Run from the repository's root, with the runner at .device/bin/runner
(RUNNER overrides it). Needs PyTorch, cuda-python and numpy.

For each pair and each of its puzzle's bench cases: `runner inputs --ptx`
writes the case's inputs and the solution's PTX; the PTX is loaded with the
driver API into PyTorch's context, and the kernel is launched as the runner
launches it (the manifest's grids, blocks, dynamic shared memory, tensor
maps and setup steps) on PyTorch's current stream. Its outputs are checked
once against the library's (the largest difference over the largest value;
printed, never fatal). Then ROUNDS rounds of PER_ROUND kernel runs and
PER_ROUND library runs, each run between its own pair of CUDA events queued
behind the same GPU-side sleep (common.LEAD_CYCLES), so both are timed on
the GPU alone. Where the runner rotated copies of the buffers to keep the
inputs out of L2, both sides rotate through as many copies here.

The pairs, each at every bench case of its puzzle (--only picks by puzzle):
  p19_sgemm_grouped       cuBLAS SGEMM: torch.mm(a, b), TF32 off
  p35_gemm_persistent     cuBLAS BF16: torch.mm(a, b)
  p35_gemm_fp8            cuBLAS FP8: torch._scaled_mm(a, bt.t(), scales, BF16 out)
  p36_attention_pingpong  SDPA on cuDNN, q, k, v [HEADS, SEQ, DIM] as [1, HEADS, SEQ, DIM]
  p36_attention_causal    the same, is_causal=True
  p43_cross_entropy       autograd.grad of F.cross_entropy(logits, targets, "sum")
  p45_attention_backward  SDPA flash's backward: autograd.grad(out, (q, k, v), dout)

The ratio is library time over kernel time, in %: above 100 % the book's
kernel is the faster, as the pages' `percent` targets count it. The last
columns set the kernel's time here beside the median the recording holds
(flagged past 2 %; the runner queues the same kind of spin on the GPU
before each timed run), and say whether the recording's inputs digest
is the one of the bytes timed here. A case that fails is said in a sentence
and the next one runs; the exit status is 1 if any failed.
"""
import argparse
import contextlib
import ctypes
import gc
import itertools
import json
import os
import re
import shutil
import statistics
import sys

import common

try:
    from cuda.bindings import driver
except ImportError:  # cuda-python before 12.6
    from cuda import cuda as driver

torch = common.require_torch("time a kernel beside its library")
F = torch.nn.functional
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")

WARMUP, FLAG_PERCENT, AGREE = 5, 2.0, 3e-2
# The runner's own limits on rotation (runner/engine/src/perf/bench.rs).
ROTATION_MEMORY, MAX_SETS = 4 << 30, 64


# --- the library side: given one copy of the buffers (t, by name) and the
# scalars (s), a call to time and the outputs it makes, by the kernel's names.

def sgemm(t, s):
    out = torch.empty_like(t["out"])
    call = lambda: torch.mm(t["a"], t["b"], out=out)
    # The outputs only once the call has filled them.
    return call, lambda: (call(), {"out": out})[1]


def gemm_fp8(t, s):
    scale_a = torch.tensor(s["scale_a"], device="cuda", dtype=torch.float32)
    scale_b = torch.tensor(s["scale_b"], device="cuda", dtype=torch.float32)
    b = t["bt"].t()  # bt is b transposed, row-major: b column-major, cuBLAS's FP8 "TN"

    def call():
        out = torch._scaled_mm(t["a"], b, scale_a=scale_a, scale_b=scale_b, out_dtype=torch.bfloat16)
        return out[0] if isinstance(out, tuple) else out  # before 2.4: (out, amax)
    return call, lambda: {"out": call()}


def attention(causal):
    def make(t, s):
        # [HEADS, SEQ, DIM] as SDPA's [batch 1, HEADS, SEQ, DIM]; its default
        # scale, 1/sqrt(DIM), is the kernels'.
        q, k, v = (t[n].unsqueeze(0) for n in "qkv")
        call = lambda: F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        return call, lambda: {"out": call()}
    return make


def cross_entropy(t, s):
    logits = t["logits"].detach().requires_grad_()  # the same storage
    targets = t["targets"].view(torch.int32).long()  # u32 ids below VOCAB, as int64
    call = lambda: torch.autograd.grad(F.cross_entropy(logits, targets, reduction="sum"), logits)[0]
    loss = lambda: F.cross_entropy(logits.detach(), targets, reduction="none")
    return call, lambda: {"dlogits": call(), "loss": loss()}


def attention_backward(t, s):
    q, k, v = (t[n].unsqueeze(0).detach().requires_grad_() for n in "qkv")
    dout = t["dout"].unsqueeze(0)
    # The forward once, untimed, as the kernel's is its setup step.
    out = F.scaled_dot_product_attention(q, k, v)
    call = lambda: torch.autograd.grad(out, (q, k, v), dout, retain_graph=True)
    return call, lambda: dict(zip(("dq", "dk", "dv"), call()))


# (puzzle, the library in words, SDPA backend or None, the library side)
PAIRS = [
    ("p19_sgemm_grouped", "cuBLAS SGEMM (torch.mm, FP32, TF32 off)", None, sgemm),
    ("p35_gemm_persistent", "cuBLAS BF16 GEMM (torch.mm)", None, sgemm),
    ("p35_gemm_fp8", "cuBLAS FP8 GEMM (torch._scaled_mm, per-tensor scales, BF16 out)", None, gemm_fp8),
    ("p36_attention_pingpong", "SDPA, BF16, cuDNN backend", "CUDNN_ATTENTION", attention(False)),
    ("p36_attention_causal", "SDPA, BF16, causal, cuDNN backend", "CUDNN_ATTENTION", attention(True)),
    ("p43_cross_entropy", "F.cross_entropy forward and backward (FP32)", None, cross_entropy),
    ("p45_attention_backward", "SDPA's backward, BF16, flash backend", "FLASH_ATTENTION", attention_backward),
]


# --- the kernel side, launched as runner/engine/src/backend/cuda/launch.rs does.

def ok(answer):
    """A cuda-python call's answer less its status, which must be success."""
    status, *values = answer
    if status != driver.CUresult.CUDA_SUCCESS:
        raise RuntimeError(f"the driver answered {getattr(status, 'name', status)}")
    return values[0] if len(values) == 1 else values


def use_torch_context():
    """Makes PyTorch's context (the device's primary one) current for the driver API."""
    torch.zeros(1, device="cuda")
    ok(driver.cuInit(0))
    if int(ok(driver.cuCtxGetCurrent())) == 0:
        device = ok(driver.cuDeviceGet(torch.cuda.current_device()))
        ok(driver.cuCtxSetCurrent(ok(driver.cuDevicePrimaryCtxRetain(device))))


MAP_TYPES = {"f32": "FLOAT32", "bf16": "BFLOAT16", "f16": "FLOAT16", "e4m3": "UINT8",
             "i32": "INT32", "u32": "UINT32"}
SCALAR_TYPES = {"f32": ctypes.c_float, "u32": ctypes.c_uint32, "i32": ctypes.c_int32}
ELEMENT_BYTES = {"f32": 4, "i32": 4, "u32": 4, "bf16": 2, "f16": 2, "e4m3": 1}


def tensor_map(tensor, plan, dtype):
    """The buffer's CUtensorMap (the runner's encoding), as 128 bytes at a
    64-byte-aligned address, to pass by value."""
    rank = len(plan["sizes"])
    swizzle = {32: "32B", 64: "64B", 128: "128B"}.get(plan["swizzle"], "NONE")
    encoded = ok(driver.cuTensorMapEncodeTiled(
        getattr(driver.CUtensorMapDataType, f"CU_TENSOR_MAP_DATA_TYPE_{MAP_TYPES[dtype]}"),
        rank, tensor.data_ptr(),
        [driver.cuuint64_t(n) for n in plan["sizes"]],
        [driver.cuuint64_t(n) for n in plan["strides"]],
        [driver.cuuint32_t(n) for n in plan["tile"]],
        [driver.cuuint32_t(1)] * rank,
        driver.CUtensorMapInterleave.CU_TENSOR_MAP_INTERLEAVE_NONE,
        getattr(driver.CUtensorMapSwizzle, f"CU_TENSOR_MAP_SWIZZLE_{swizzle}"),
        driver.CUtensorMapL2promotion.CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
        driver.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE))
    raw = (ctypes.c_ubyte * 192)()
    words = (ctypes.c_uint64 * 16).from_buffer(raw, -ctypes.addressof(raw) % 64)
    words[:] = [int(w) for w in encoded.opaque]
    return words


class Kernel:
    """The solution's module and its functions, each allowed the most dynamic
    shared memory any of its launches asks for, where that passes 48 KiB."""

    def __init__(self, inputs):
        with open(os.path.join(inputs.folder, inputs.manifest["ptx"]), "rb") as f:
            self.module = ok(driver.cuModuleLoadData(f.read() + b"\0"))
        self.functions = {}
        for launch in inputs.manifest["launches"]:
            name = launch["kernel"]
            if name not in self.functions:
                self.functions[name] = ok(driver.cuModuleGetFunction(self.module, name.encode()))
            shared = max(l["dynamic_shared_bytes"] for l in inputs.manifest["launches"]
                         if l["kernel"] == name)
            if shared > 48 * 1024:
                attribute = driver.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
                ok(driver.cuFuncSetAttribute(self.functions[name], attribute, shared))

    def unload(self):
        ok(driver.cuModuleUnload(self.module))


class BufferSet:
    """One copy of every argument (the inputs' bytes, zeroed outputs and
    scratch), its launches' parameters, and the library's call on it."""

    def __init__(self, kernel, inputs, copy, library):
        manifest = inputs.manifest
        self.tensors, params = {}, []
        for arg in manifest["args"]:
            if arg["kind"] == "scalar":  # by value, in its type
                kind = SCALAR_TYPES[arg["dtype"]]
                params.append(kind(arg["value"] if kind is ctypes.c_float else int(arg["value"])))
                continue
            tensor = inputs.tensors.get(arg["name"])
            if tensor is None:
                dtype = getattr(torch, common.TORCH_TYPES[arg["dtype"]])
                tensor = torch.zeros(arg["shape"], dtype=dtype, device="cuda")
            elif copy:
                tensor = tensor.clone()
            self.tensors[arg["name"]] = tensor
            params.append(tensor_map(tensor, arg["tensor_map"], arg["dtype"]) if arg["tensor_map"]
                          else ctypes.c_uint64(tensor.data_ptr()))
        self.params = params  # kept alive: the arrays below hold their addresses
        self.launches = []
        for launch in manifest["launches"]:
            # The void** cuLaunchKernel takes: each parameter's address.
            addresses = [ctypes.addressof(params[i]) for i in launch["args"]]
            pointers = (ctypes.c_void_p * len(addresses))(*addresses)
            self.launches.append((launch, kernel.functions[launch["kernel"]], pointers))
        self.stream = driver.CUstream(torch.cuda.current_stream().cuda_stream)
        self.library, self.library_outputs = library(self.tensors, inputs.scalars)

    def run(self, setup=False):
        """The setup launches, or every other launch in order: one timed run."""
        for launch, function, pointers in self.launches:
            if launch["setup"] == setup:
                ok(driver.cuLaunchKernel(function, *launch["grid"], *launch["block"],
                                         launch["dynamic_shared_bytes"], self.stream,
                                         ctypes.addressof(pointers), 0))


def sample(call):
    """One run between CUDA events queued behind a GPU-side sleep, in ms."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    torch.cuda._sleep(common.LEAD_CYCLES)
    start.record()
    call()
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def summary(times):
    return {"clock": "device", "samples": len(times), "median_ms": statistics.median(times),
            "min_ms": min(times), "max_ms": max(times)}


def buffer_sets(inputs, recorded):
    """As many copies as the recording rotated through, else as many as the
    runner would: twice L2 in all, within 4 GiB and 64 copies."""
    if recorded and recorded.get("buffer_sets"):
        return recorded["buffer_sets"]
    footprint = sum(torch.Size(a["shape"]).numel() * ELEMENT_BYTES[a["dtype"]]
                    for a in inputs.manifest["args"] if a["kind"] == "buffer")
    device = ok(driver.cuDeviceGet(torch.cuda.current_device()))
    l2 = ok(driver.cuDeviceGetAttribute(driver.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, device))
    wanted = -(-2 * l2 // max(footprint, 1))
    return max(1, min(wanted, max(ROTATION_MEMORY // max(footprint, 1), 1), MAX_SETS))


def recorded_bench(benches, puzzle, constants):
    """The last recorded CUDA bench of `puzzle` at exactly `constants`."""
    found = None
    for bench in benches:
        result = (bench.get("outcome") or {}).get("Ok") if isinstance(bench.get("outcome"), dict) else None
        if bench.get("puzzle") != puzzle or bench.get("lang") != "cuda" or not result:
            continue
        full = result.get("constants")
        # Older recordings may hold the case's own constants alone.
        if full == constants or (full is None and all(constants.get(k) == v
                                                      for k, v in bench["case"].items())):
            found = result
    return found


def measure(puzzle, library_words, backend, library, inputs, recorded, rounds, per_round):
    """One case of a pair: checked once, then timed alternately."""
    kernel = Kernel(inputs)
    sets = []
    try:
        choose = contextlib.nullcontext()
        if backend:
            from torch.nn.attention import SDPBackend, sdpa_kernel
            choose = sdpa_kernel([getattr(SDPBackend, backend)])
        with choose:
            count = buffer_sets(inputs, recorded)
            sets = [BufferSet(kernel, inputs, i > 0, library) for i in range(count)]
            for s in sets:
                s.run(setup=True)
            sets[0].run()
            expected = sets[0].library_outputs()
            differences, health = {}, {}
            for name, got in expected.items():
                kernel_out = sets[0].tensors[name].float()
                library_out = got.float().reshape(kernel_out.shape)
                differences[name], health[name] = compare(kernel_out, library_out)
            del expected, got, kernel_out, library_out
            # Each side's run i on copy i mod count, as the runner rotates.
            kernel_runs = itertools.cycle([s.run for s in sets])
            library_runs = itertools.cycle([s.library for s in sets])
            for _ in range(WARMUP):
                next(kernel_runs)()
                next(library_runs)()
            torch.cuda.synchronize()
            kernel_times, library_times = [], []
            for _ in range(rounds):
                kernel_times += [sample(next(kernel_runs)) for _ in range(per_round)]
                library_times += [sample(next(library_runs)) for _ in range(per_round)]
    finally:
        # Everything of this case let go (after a failed launch as well as
        # not, though a context broken by a fault stays broken).
        sets.clear()
        gc.collect()
        with contextlib.suppress(Exception):
            torch.cuda.synchronize()
            kernel.unload()
            torch.cuda.empty_cache()
        shutil.rmtree(inputs.folder, ignore_errors=True)
    mine, theirs = summary(kernel_times), summary(library_times)
    worst = max(differences.values())
    row = {
        "puzzle": puzzle, "constants": inputs.manifest["constants"], "library": library_words,
        "inputs": inputs.manifest["inputs"], "buffer_sets": count,
        "kernel": mine, "library_timing": theirs,
        "ratio_percent": 100 * theirs["median_ms"] / mine["median_ms"],
        # The largest |kernel − library| over the largest |library|, in %.
        "max_difference_percent": 100 * worst,
        "max_difference_percent_by_output": {k: 100 * v for k, v in differences.items()},
        # What each side wrote: values that are not finite, and the largest.
        "outputs": health,
        "recorded_median_ms": recorded["timing"]["median_ms"] if recorded else None,
        "recorded_difference_percent": None, "digest_matches": None,
    }
    if recorded:
        row["recorded_difference_percent"] = 100 * (mine["median_ms"] / recorded["timing"]["median_ms"] - 1)
        digest = (recorded.get("inputs") or {}).get("digest")
        row["digest_matches"] = None if digest is None else digest == inputs.manifest["inputs"]["digest"]
    if not worst <= AGREE:
        print(f"{puzzle} {describe(row)}: the kernel's outputs differ from {library_words}'s by "
              + ", ".join(f"{k} {100 * v:.3g} %" for k, v in differences.items()) + " of the largest value; "
              + "; ".join(f"{k}: kernel {h['kernel']}, library {h['library']}" for k, h in health.items()))
    return row


def compare(kernel_out, library_out):
    """The largest |kernel − library| over the largest finite |library|, and
    what each side wrote (non-finite counts, largest finite magnitudes): a
    difference of "inf" alone cannot tell a kernel that wrote garbage from
    a library that did, or an output no one wrote."""
    def looks(t):
        finite = torch.isfinite(t)
        magnitudes = t.abs().masked_fill(~finite, 0)
        return {"nonfinite": int((~finite).sum().item()), "largest": magnitudes.max().item(),
                "zeros": int((t == 0).sum().item()), "count": t.numel()}
    both = torch.isfinite(kernel_out) & torch.isfinite(library_out)
    largest = library_out.abs().masked_fill(~both, 0).max().item()
    worst = (kernel_out - library_out).abs().masked_fill(~both, 0).max().item()
    health = {"kernel": looks(kernel_out), "library": looks(library_out)}
    if health["kernel"]["nonfinite"] or health["library"]["nonfinite"]:
        return float("inf"), health
    if largest == 0:
        return (float("inf") if worst > 0 else 0.0), health
    return worst / largest, health


def describe(row):
    return " ".join(f"{k}={v}" for k, v in row["constants"].items())


def cases_of(puzzle):
    """Each bench case's inputs, until the runner says there are no more."""
    for case in itertools.count(1):
        try:
            yield case, common.runner_inputs(torch, puzzle, case=case, ptx=True, keep=True)
        except SystemExit as said:
            if case > 1 and "bench case(s)" in str(said.code):
                return
            raise RuntimeError(str(said.code)) from None


def table(rows):
    ms = lambda t: f"{t['median_ms']:.4f} ({t['min_ms']:.4f}–{t['max_ms']:.4f})"
    heads = ["puzzle", "case", "library", "kernel ms", "library ms", "library/kernel",
             "max diff", "recorded ms", "here vs recorded", "digest"]
    lines = ["| " + " | ".join(heads) + " |", "|" + " --- |" * len(heads)]
    for r in rows:
        d = r["recorded_difference_percent"]
        against = "no recording" if d is None else f"{d:+.1f} %" + (" ⚠" if abs(d) > FLAG_PERCENT else "")
        digest = {True: "same", False: "DIFFERENT", None: "not recorded"}[r["digest_matches"]]
        recorded = "—" if r["recorded_median_ms"] is None else f"{r['recorded_median_ms']:.4f}"
        cells = [r["puzzle"], describe(r), r["library"], ms(r["kernel"]), ms(r["library_timing"]),
                 f"{r['ratio_percent']:.1f} %", f"{r['max_difference_percent']:.3g} %",
                 recorded, against, digest]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", help="comma-separated puzzle ids of the pairs to run")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--per-round", type=int, default=20)
    args = parser.parse_args()
    wanted = args.only.split(",") if args.only else [p[0] for p in PAIRS]
    unknown = set(wanted) - {p[0] for p in PAIRS}
    if unknown:
        sys.exit(f"no pair for {', '.join(sorted(unknown))} (known: {', '.join(p[0] for p in PAIRS)})")
    use_torch_context()
    device = torch.cuda.get_device_name()
    stem = re.sub(r"[^a-z0-9]+", "-", device.lower()).strip("-")
    try:
        with open(f"results/cuda-{stem}.json") as f:
            benches = json.load(f).get("benches", [])
    except OSError:
        print(f"No recordings for {device} (results/cuda-{stem}.json): nothing to set the kernels beside.")
        benches = []
    version = getattr(sys.modules.get("cuda.bindings") or sys.modules.get("cuda"), "__version__", "unknown")
    meta = common.provenance(torch)
    meta["software"] += f", cuDNN {torch.backends.cudnn.version()}, cuda-python {version}"
    rows, failed = [], False
    for puzzle, words, backend, library in (p for p in PAIRS if p[0] in wanted):
        try:
            for case, inputs in cases_of(puzzle):
                recorded = recorded_bench(benches, puzzle, inputs.manifest["constants"])
                if recorded is None:
                    print(f"{puzzle} case {case}: no recorded bench at these constants "
                          f"in results/cuda-{stem}.json.")
                print(f"timing {puzzle} case {case} beside {words}...", file=sys.stderr, flush=True)
                try:
                    rows.append(measure(puzzle, words, backend, library, inputs, recorded,
                                        args.rounds, args.per_round))
                except Exception as e:  # this case is reported, and the next one runs
                    failed = True
                    print(f"{puzzle} case {case} did not run beside {words}: {e}")
        except RuntimeError as e:  # the runner refused: the next pair runs
            failed = True
            print(f"{puzzle} did not run beside {words}: {e}")
    print(f"\n## The kernel and its library in one process, on {meta['device']}, {meta['date']}\n")
    print(f"{meta['software']}; {args.rounds} rounds of {args.per_round} runs each side; "
          f"library/kernel above 100 % means the kernel is the faster.\n")
    print(table(rows))
    report = {"comparison": "same process, alternating rounds", **meta,
              "rounds": args.rounds, "per_round": args.per_round, "rows": rows}
    print(f"\nwrote {common.write_report(report, 'results/same-process', device)}")
    sys.exit(1 if failed else 0)


main()
