#!/usr/bin/env python3
"""There (the GPU machine): the fastest copy, read and write PyTorch knows on
this GPU, for the ceilings `runner calibrate` measures to be compared with.
Writes results/baselines/torch-streams-<gpu>.json.

    python3 .ci/gpu/baseline/streams.py [FLOATS]       (default 2^27, as calibrate)

Three operations over FP32 buffers of FLOATS elements, each timed like
`runner bench` times a kernel (warm-up calls, then CUDA events around each of
50 calls, the median):
  copy   out.copy_(src)          bytes read + bytes written
  read   torch.sum(src)          bytes read (the one-element result is noise;
                                 FP32, checked to 1e-5 of the exact total)
  write  out.fill_(1.0)          bytes written
Each result is checked (the copy equals its source, the sum equals the known
total, the fill holds the value), so a fast wrong answer cannot stand.

The buffers hold data of their own (small integers, whose sum is exact), not
a puzzle's bench inputs (`runner inputs`): these times are memory roofs on
the pages, and no page compares a kernel with them as a ratio.
"""
import sys

import common

torch = common.require_torch("time its copies")

SAMPLES, WARMUP = 50, 5


def timed(call):
    return common.timed(call, SAMPLES, WARMUP)


floats = int(sys.argv[1]) if len(sys.argv) > 1 else 1 << 27
# Small integers: their FP32 sum is exact, so the read can be checked exactly.
src = (torch.arange(floats, device="cuda") % 4).float()
out = torch.empty_like(src)
total = float(sum(i % 4 for i in range(4)) * (floats // 4))
cases = []

copy = timed(lambda: out.copy_(src))
copy_error = (out - src).abs().max().item()
cases.append(("copy", copy, 8 * floats, copy_error))

sums = []
read = timed(lambda: sums.append(torch.sum(src)))
cases.append(("read", read, 4 * floats, abs(sums[-1].item() - total) / total))

write = timed(lambda: out.fill_(1.0))
cases.append(("write", write, 4 * floats, (out - 1.0).abs().max().item()))

device = torch.cuda.get_device_name()
report = {
    "library": "PyTorch's own copy, sum and fill",
    **common.provenance(torch),
    "cases": [
        {
            "name": name,
            "constants": {"FLOATS": floats},
            "bytes": nbytes,
            "timing": timing,
            "max_relative_error": error,
        }
        for name, timing, nbytes, error in cases
    ],
}
bad = [c["name"] for c in report["cases"] if c["max_relative_error"] > 1e-5]
if bad:
    sys.exit(f"PyTorch's {', '.join(bad)} gave a wrong result on {device}: not recorded")
path = common.write_report(report, "results/baselines", f"torch-streams-{device}")
for c in report["cases"]:
    t = c["timing"]
    print(
        f"torch {c['name']} of {floats} floats on {device}: median {t['median_ms']:.4f} ms "
        f"(min {t['min_ms']:.4f}, max {t['max_ms']:.4f}, n={t['samples']}), "
        f"{c['bytes'] / t['median_ms'] / 1e6:.1f} GB/s"
    )
print(f"wrote {path}")
