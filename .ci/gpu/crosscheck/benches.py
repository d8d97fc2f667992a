#!/usr/bin/env python3
"""There (the GPU machine): the recorded CUDA benchmarks of the performance
chapters against an independent timer, Nsight Compute's gpu__time_duration.

    python3 .ci/gpu/crosscheck/benches.py PUZZLE [PUZZLE ...]

For each CUDA bench case of each PUZZLE in results/cuda-<gpu>.json, runs
`runner bench` at that case under ncu (clocks and caches left alone, so the
kernels run as they did for the recording) and compares the recording's median
(CUDA events around each run) with the median over runs of the kernels'
summed durations as the profiler measured them. Prints a markdown table.
"""
import csv
import glob
import io
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

SAMPLES, WARMUP = 10, 3
BIN = os.path.join(os.getcwd(), ".device/bin/runner")
ncu = shutil.which("ncu") or (sorted(glob.glob("/usr/local/cuda*/bin/ncu")) or [None])[-1]
if not ncu:
    sys.exit("no ncu here: cannot cross-check with Nsight Compute")
here = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                      capture_output=True, text=True).stdout.splitlines()[:1]
# Only this GPU's recording: the others' times were taken elsewhere.
recordings = [r for r in (json.load(open(p)) for p in glob.glob("results/cuda-*.json"))
              if r["device"]["name"] in here]
if not recordings:
    sys.exit(f"no results/cuda-*.json of this GPU ({here}) here: run `runner record` first")


def profiled_ms(puzzle, case, sets):
    """Median over the timed runs of the summed kernel durations, and the kernels per run."""
    log = tempfile.mktemp(suffix=".csv")
    sets_arg = ["--buffer-sets", str(sets)] if sets else []
    command = [ncu, "--csv", "--print-units", "base", "--log-file", log,
               "--clock-control", "none", "--cache-control", "none", "--target-processes", "all",
               "--metrics", "gpu__time_duration.sum",
               BIN, "bench", puzzle, "--backend", "cuda", "--samples", str(SAMPLES),
               "--warmup", str(WARMUP), *sets_arg]
    for name, value in case.items():
        command += ["--set", f"{name}={value}"]
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    text = open(log).read()
    rows = list(csv.DictReader(io.StringIO(text[text.index('"ID"'):])))
    launches = [(r["Kernel Name"], float(r["Metric Value"].replace(",", "")) / 1e6) for r in rows
                if r["Metric Name"] == "gpu__time_duration.sum"]
    names = []
    for name, _ in launches:
        if name in names:
            break
        names.append(name)
    per_run = [launches[i:i + len(names)] for i in range(0, len(launches), len(names))]
    assert all([n for n, _ in run] == names for run in per_run), "kernels out of step"
    timed = [sum(ms for _, ms in run) for run in per_run[-SAMPLES:]]
    return statistics.median(timed), names


print("| GPU | puzzle | case | runner record (CUDA events) | Nsight Compute gpu__time_duration | difference |")
print("| --- | --- | --- | ---: | ---: | ---: |")
worst = 0.0
for recording in recordings:
    gpu = recording["device"]["name"]
    for puzzle in sys.argv[1:]:
        for bench in recording.get("benches", []):
            if bench["puzzle"] != puzzle or bench["lang"] != "cuda" or "Ok" not in bench["outcome"]:
                continue
            report = bench["outcome"]["Ok"]
            recorded = report["timing"]["median_ms"]
            profiled, kernels = profiled_ms(puzzle, bench["case"], report.get("buffer_sets"))
            diff = 100 * (recorded - profiled) / profiled
            worst = max(worst, abs(diff))
            case = ", ".join(f"{k}={v}" for k, v in bench["case"].items())
            print(f"| {gpu} | {puzzle} ({' + '.join(kernels)}) | {case} | {recorded * 1000:.1f} µs "
                  f"| {profiled * 1000:.1f} µs | {diff:+.2f}% |")
print(f"\nLargest difference: {worst:.2f}%")
