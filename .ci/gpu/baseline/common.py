"""What the baseline scripts share: PyTorch found (or a sentence saying why
not), a library call timed the way `runner bench` times a kernel, the
device, software and date every report carries, a report written under the
name `runner record` would give it, and the attention backend PyTorch picks
by default. Imported by the scripts beside it (Python puts a script's own
folder first on its path).
"""
import datetime
import json
import os
import re
import statistics
import sys


def require_torch(what):
    """PyTorch, with a CUDA GPU; otherwise the script ends with a sentence
    naming what is missing and what could not be done (`what`, as in
    "cannot time cuBLAS")."""
    try:
        import torch
    except ImportError:
        sys.exit(f"PyTorch is not installed here: cannot {what} (pip install torch)")
    if not torch.cuda.is_available():
        sys.exit(f"PyTorch sees no CUDA GPU here: cannot {what}")
    return torch


def provenance(torch):
    """The fields that say where and when a report was measured."""
    return {
        "software": f"PyTorch {torch.__version__}, CUDA {torch.version.cuda}",
        "device": torch.cuda.get_device_name(),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
    }


# GPU cycles of the sleep queued ahead of each timed call (about half a
# millisecond): longer than PyTorch's host work before a launch.
LEAD_CYCLES = 1_000_000


def timed(call, samples, warmup):
    """`warmup` calls, then one pair of CUDA events around each of `samples`
    calls; the median, fastest and slowest, in the recordings' schema.

    Each pair of events waits behind a short sleep on the GPU. Without it,
    the start event completes at once on an idle GPU, and the time then
    counts the host's work before the launch (Python, the dispatcher, a
    library's heuristics): tens of microseconds, a third of a 0.1 ms
    kernel's time. With it, the host queues the call while the GPU sleeps,
    and the events time the GPU's work alone. (Baselines recorded before
    2026-11-27 were timed without it.)"""
    import torch

    for _ in range(warmup):
        call()
    times = []
    for _ in range(samples):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(LEAD_CYCLES)
        start.record()
        call()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end))
    return {
        "clock": "device",
        "samples": samples,
        "median_ms": statistics.median(times),
        "min_ms": min(times),
        "max_ms": max(times),
    }


def write_report(report, folder, name):
    """Writes `report` as folder/<name>.json, the name in lower case with runs
    of other characters as one dash (runner record's file naming); returns
    the path."""
    os.makedirs(folder, exist_ok=True)
    stem = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    path = f"{folder}/{stem}.json"
    with open(path, "w") as f:
        json.dump(report, f, indent=2)
        f.write("\n")
    return path


def relative_error(got, exact):
    """The largest difference between `got` and the FP64 `exact`, over the
    largest magnitude of `exact`: the error every baseline records."""
    return ((got.double() - exact).abs().max() / exact.abs().max()).item()


def default_sdpa_backend(q, k, v, is_causal=False):
    """The backend scaled_dot_product_attention picks on this GPU for q, k
    and v (causal or not) outside any sdpa_kernel restriction, by
    SDPBackend's member name (torch._fused_sdp_choice, the choice SDPA
    itself makes, answers with the member's number)."""
    import torch
    from torch.nn.attention import SDPBackend

    chosen = torch._fused_sdp_choice(q, k, v, is_causal=is_causal)
    for name, member in SDPBackend.__members__.items():
        if int(member) == int(chosen):
            return name
    return f"unknown ({chosen})"


def write_cases(torch, op, library, cases, tolerance=1e-5):
    """Writes PyTorch's timed `cases` of `op` as
    results/baselines/torch-<op>-<gpu>.json, with a line per case (its rate
    in TFLOP/s where it counts flops, else in GB/s of its bytes); ends the
    script instead where a case's output differs from FP64 by more than
    `tolerance`, so that a wrong library result is never a yardstick."""
    device = torch.cuda.get_device_name()
    report = {"library": library, **provenance(torch), "cases": cases}
    bad = [c for c in cases if not c["max_relative_error"] <= tolerance]
    if bad:
        sys.exit(
            f"PyTorch's {op} differs from FP64 by {bad[0]['max_relative_error']:.1e} "
            f"on {device}: not recorded"
        )
    path = write_report(report, "results/baselines", f"torch-{op}-{device}")
    for c in cases:
        t = c["timing"]
        size = " x ".join(str(v) for v in c["constants"].values())
        rate = (
            f"{c['flops'] / t['median_ms'] / 1e9:.1f} TFLOP/s"
            if "flops" in c
            else f"{c['bytes'] / t['median_ms'] / 1e6:.1f} GB/s"
        )
        print(
            f"{library} {size} on {device}: median {t['median_ms']:.4f} ms "
            f"(min {t['min_ms']:.4f}, max {t['max_ms']:.4f}, n={t['samples']}), "
            f"{rate}, max rel. error vs FP64 {c['max_relative_error']:.1e}"
        )
    print(f"wrote {path}")


# The runner the GPU machine carries (.ci/gpu/pack); RUNNER overrides it.
RUNNER = os.environ.get("RUNNER", ".device/bin/runner")
# Each element type as PyTorch holds it.
TORCH_TYPES = {"f32": "float32", "i32": "int32", "u32": "uint32", "bf16": "bfloat16",
               "f16": "float16", "e4m3": "float8_e4m3fn"}


class RunnerInputs:
    """A benchmark case's inputs as `runner inputs` wrote them: the very
    bytes the book's kernel is timed on. `tensors` maps each input's name to
    a tensor on the GPU in its spec's type and shape; `scalars` each
    scalar's value; `manifest` is manifest.json. `stamp()` gives the fields
    a baseline case carries so that a page compares it with the kernel:
    `inputs` (the distribution and the digest) and `inputs_of` (the puzzle
    whose bench case they are)."""

    def __init__(self, torch, folder):
        with open(os.path.join(folder, "manifest.json")) as f:
            self.manifest = json.load(f)
        self.folder = folder
        self.tensors, self.scalars, self.outputs = {}, {}, {}
        for arg in self.manifest["args"]:
            if arg["kind"] == "scalar":
                self.scalars[arg["name"]] = arg["value"]
            elif arg["file"]:
                self.tensors[arg["name"]] = load_tensor(torch, os.path.join(folder, arg["file"]),
                                                        arg["dtype"], arg["shape"])
            else:
                self.outputs[arg["name"]] = arg
        self.puzzle = self.manifest["puzzle"]

    def stamp(self):
        return {"inputs": dict(self.manifest["inputs"]), "inputs_of": self.puzzle}

    def __getitem__(self, name):
        return self.tensors[name]


def load_tensor(torch, path, dtype, shape):
    """A raw little-endian file of `dtype` elements as a GPU tensor of `shape`."""
    import numpy

    raw = numpy.fromfile(path, dtype=numpy.uint8)
    host = torch.from_numpy(raw).view(getattr(torch, TORCH_TYPES[dtype]))
    return host.reshape(shape).to("cuda")


def runner_inputs(torch, puzzle, case=1, ptx=False, keep=False, **constants):
    """The inputs of `puzzle`'s `case`-th bench case (from 1), with
    `constants` changed (SIZE=8192; the others shape the launch, not the
    inputs), written by `runner inputs` into a temporary folder and loaded:
    a library timed on them is timed on what the kernel is. The folder (4
    GiB at 2^30 floats) is removed once loaded, unless `keep` (the PTX is
    read from it later). Ends the script with the runner's words if it fails."""
    import shutil
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix=f"inputs-{puzzle}-")
    command = [RUNNER, "inputs", puzzle, "--case", str(case), "--out", folder]
    command += [f"--set={k}={v}" for k, v in constants.items()]
    if ptx:
        command.append("--ptx")
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"`{' '.join(command)}` failed: {done.stderr.strip() or done.stdout.strip()}")
    loaded = RunnerInputs(torch, folder)
    if not keep:
        shutil.rmtree(folder)
    return loaded
