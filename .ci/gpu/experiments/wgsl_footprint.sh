#!/usr/bin/env bash
# There (the GPU machine, carrying .device and .gl): does the WGSL reduction of
# puzzle 17 slow down with the bytes it reads, or with the size of the buffer
# it reads them from? Times the book's step 4 once over a buffer, and a copy of
# it that sums the same buffer twice (PASSES = 2), so that 1 GiB of reads can
# come from a 512 MiB buffer as well as from a 1 GiB one. The twice-variant's
# output is twice the reference by design: only its time matters here.
#   bash .ci/gpu/experiments/wgsl_footprint.sh
set -euo pipefail
export GPU_PUZZLES_BOOK=$PWD XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
book=$(mktemp -d)
cp -r book.toml src kernels results "$book"/
python3 - "$book/kernels/performance/p17_reduce_vec4/reduce_vec4.wgsl" <<'PY'
import sys
path = sys.argv[1]
s = open(path).read()
for old, new in [
    ("const UNROLL: u32 = 4u;", "const UNROLL: u32 = 4u;\nconst PASSES: u32 = 2u;"),
    ("    var sums = vec4<f32>(0.0);\n    var i = wid.x * TPB + lid.x;",
     "    var sums = vec4<f32>(0.0);\n    var i = 0u;\n    for (var round = 0u; round < PASSES; round++) {\n    i = wid.x * TPB + lid.x;"),
    ("    value = (sums.x + sums.y) + (sums.z + sums.w);",
     "    }\n    value = (sums.x + sums.y) + (sums.z + sums.w);"),
]:
    assert old in s, f"the book's kernel changed: {old!r} not found"
    s = s.replace(old, new)
open(path, "w").write(s)
PY
b() { .device/bin/runner bench p17_reduce_vec4 --book "$1" --backend wgpu --samples 20 --set BLOCKS=1056 --set SIZE="$2" 2>&1 | grep -E "device time"; }
echo "once,  512 MiB read from a 512 MiB buffer: $(b "$PWD" 134217728)"
echo "twice, 512 MiB read from a 256 MiB buffer: $(b "$book" 67108864)"
echo "twice, 1 GiB read from a 512 MiB buffer:   $(b "$book" 134217728)"
echo "once,  1 GiB read from a 1 GiB buffer:     $(b "$PWD" 268435456)"
