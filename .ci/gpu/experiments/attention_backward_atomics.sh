#!/usr/bin/env bash
# There (the GPU machine, after .ci/gpu/pack): how Puzzle 45 step 1's dq
# atomics cost, at its bench size. Times the solution beside three edits of
# it, made here with sed: dq added by two scalar atomicAdds a pair of
# values straight from the fragments (the first version), by one
# red.global.add.v2.f32 a pair, and not added at all (a wrong kernel, the
# atomics' floor).
set -euo pipefail
export XDG_RUNTIME_DIR=$(mktemp -d) GPU_PUZZLES_BOOK=$PWD
nvrtc=$(ls -d /usr/local/cuda*/targets/x86_64-linux/lib | sort -V | tail -1)
export LD_LIBRARY_PATH=$nvrtc${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
dir=kernels/training/p45_attention_backward
kernel=$dir/attention_backward.cu
# The variants sit beside the solution, so that its includes resolve.
trap 'rm -f $dir/experiment_*.cu' EXIT
direct='            float* at = dq + static_cast<size_t>(tile * 16 + lane / 4 + h * 8) * DIM + col0 + d * 8 + lane % 4 * 2;'
variant() {  # name, then the two lines that replace the patch's float2 store
    python3 - "$kernel" "$dir/experiment_$1.cu" "$direct" "$2" <<'PY'
import sys
src, out, direct, body = sys.argv[1:]
s = open(src).read()
start = s.index("            float* at = &patch[")
end = s.index("    // The patch is read before the next tile's writes.\n    __syncwarp();\n")
end += len("    // The patch is read before the next tile's writes.\n    __syncwarp();\n")
tail = "        }\n    }\n"
s = s[:start] + direct + "\n" + body + "\n" + tail + s[end:]
open(out, "w").write(s)
PY
}
variant scalar '            atomicAdd(at, acc[d][2 * h] * scale); atomicAdd(at + 1, acc[d][2 * h + 1] * scale);'
variant v2 '            asm volatile("red.global.add.v2.f32 [%0], {%1, %2};" ::"l"(at), "f"(acc[d][2 * h] * scale), "f"(acc[d][2 * h + 1] * scale) : "memory");'
variant none '            if (acc[d][2 * h] == 12345.0f) at[0] = 0.0f;'
for file in $kernel $dir/experiment_scalar.cu $dir/experiment_v2.cu $dir/experiment_none.cu; do
    echo "== $file"
    .device/bin/runner bench p45_attention_backward --backend cuda --file "$file" 2>&1 | grep 'device time'
done
