#!/usr/bin/env python3
"""There (the GPU machine), after `runner record` and the baseline scripts of
the same session: the book's headline kernels beside their libraries, as one
markdown table of medians, spreads and ratios. Run by `bash .ci/gpu/remote
versus`, which does the recording and the timing first.

    python3 .ci/gpu/baseline/versus.py

A ratio is the library's median time over the kernel's at the same size:
above 100 %, the kernel is faster. Only recordings and baselines of this GPU
are read, and a pair whose dates differ is flagged, since a ratio is only
meant to come from one session.
"""
import glob
import json
import subprocess
import sys

# (language, puzzle, baseline case name): the pairs the issue of record asks for.
PAIRS = [
    ("cuda", "p17_reduce_vec4", "sum"),
    ("cuda", "p18_scan_async", "cumsum"),
    ("cuda", "p19_sgemm_warptile", "sgemm"),
    ("cuda", "p19_sgemm_thick", "sgemm"),
    ("cuda", "p19_sgemm_grouped", "sgemm"),
    ("wgsl", "p19_sgemm_named", "sgemm"),
    ("wgsl", "p19_sgemm_unrolled", "sgemm"),
]
# Streams also against the copy roof `runner calibrate` measured in the recording.
COPY_ROOF = [("wgsl", "p17_reduce_vec4"), ("cuda", "p17_reduce_vec4"), ("cuda", "p18_scan_async")]

here = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"],
                      capture_output=True, text=True).stdout.splitlines()[:1]
if not here:
    sys.exit("nvidia-smi names no GPU here")
gpu = here[0].strip()


def load(pattern):
    found = []
    for path in glob.glob(pattern):
        with open(path) as f:
            found.append(json.load(f))
    return found


recordings = {}
for r in load("results/*-*.json"):
    if isinstance(r.get("device"), dict) and r["device"].get("name") == gpu:
        recordings[r["device"]["backend"]] = r
baselines = [b for b in load("results/baselines/*.json") if b.get("device") == gpu]
if not recordings:
    sys.exit(f"no recording of {gpu} under results/: run `runner record` first")


def spread(t):
    return f"{t['min_ms']:.4f}–{t['max_ms']:.4f}"


def benches(lang, puzzle):
    backend = "cuda" if lang == "cuda" else "wgpu"
    r = recordings.get(backend)
    for e in (r or {}).get("benches", []):
        if e["puzzle"] == puzzle and e["lang"] == lang and "Ok" in e["outcome"]:
            yield r, e["case"], e["outcome"]["Ok"]


print(f"### {gpu}\n")
print("| kernel | size | ours: median (min–max) | library | library: median (min–max) | ratio | dates |")
print("| --- | --- | ---: | --- | ---: | ---: | --- |")
for lang, puzzle, name in PAIRS:
    for recording, case, report in benches(lang, puzzle):
        for b in baselines:
            for c in b["cases"]:
                if c["name"] != name or any(case.get(k) != v for k, v in c["constants"].items()):
                    continue
                ours, theirs = report["timing"], c["timing"]
                # A ratio only for the same bytes on both sides (as the pages refuse others).
                digest = lambda side: (side.get("inputs") or {}).get("digest")
                same = digest(c) is not None and digest(c) == digest(report)
                ratio = (f"{100 * theirs['median_ms'] / ours['median_ms']:.1f} %" if same
                         else "not compared: other inputs")
                size = ", ".join(f"{k}={v}" for k, v in case.items())
                dates = recording["date"] if recording["date"] == b["date"] else \
                    f"{recording['date']} / {b['date']} (not one session)"
                print(f"| {lang} `{puzzle}` | {size} | {ours['median_ms']:.4f} ms ({spread(ours)}) | "
                      f"{b['library']} `{name}` | {theirs['median_ms']:.4f} ms ({spread(theirs)}) | "
                      f"{ratio} | {dates} |")
print("\n| kernel | size | ours | copy roof (runner calibrate) | share |")
print("| --- | --- | ---: | ---: | ---: |")
for lang, puzzle in COPY_ROOF:
    for recording, case, report in benches(lang, puzzle):
        roof = recording["ceilings"]["bandwidth_gb_s"]["value"]
        rate = report["placement"]["achieved_gb_s"]
        print(f"| {lang} `{puzzle}` | SIZE={case.get('SIZE')} | {rate:,.0f} GB/s | {roof:,.0f} GB/s | "
              f"{100 * rate / roof:.1f} % |")
