#!/usr/bin/env bash
# There (the GPU machine, carrying .device and .gl): Puzzle 19 step 5 with two
# knobs (launch bounds, tile walk) at tile shapes the book's spec does not
# try, one line each, then cuBLAS in the same session.
#   SIZES="4096" bash .ci/gpu/experiments/sgemm_configs.sh ["BM=128 BN=256 ..." ...]
set -uo pipefail
source .ci/gpu/experiments/bench_env.sh
book=$(mktemp -d)
cp -r book.toml src kernels results "$book"/
# The variant is the book's kernel with two knobs added (MINB=2, GROUP=1 is step 5):
#   MINB   __launch_bounds__'s minimum blocks per multiprocessor
#   GROUP  blocks walk GROUP rows of tiles at a time (1: row by row), so that
#          the blocks resident together share b's column panels in the L2
python3 - "$book/src/performance/p19_sgemm_5_warptile.md" "$book/kernels/performance/p19_sgemm_warptile/sgemm_warptile.cu" <<'PY'
import sys
spec, kernel = sys.argv[1], sys.argv[2]
s = open(spec).read()
old = "id: p19_sgemm_warptile\ntitle: SGEMM, step 5 (warp tiles)\nreference: matmul\nkernel: sgemm_warptile\nconst:\n"
assert old in s, "the book's spec changed"
open(spec, "w").write(s.replace(old, old + "  MINB: 2\n  GROUP: 1\n"))
s = open(kernel).read()
for old, new in [
    ("#define BM ", "#define MINB 2\n#define GROUP 1\n#define BM "),
    ("__launch_bounds__(THREADS, 2)", "__launch_bounds__(THREADS, MINB)"),
    ("""    p.row0 = blockIdx.y * BM;
    p.col0 = blockIdx.x * BN;""",
     """    {
        unsigned int cols = gridDim.x, rows = gridDim.y;
        unsigned int id = blockIdx.y * cols + blockIdx.x;
        unsigned int first = id / (GROUP * cols) * GROUP;
        unsigned int height = min(GROUP, rows - first);
        unsigned int in_group = id % (GROUP * cols);
        p.row0 = (first + in_group % height) * BM;
        p.col0 = (in_group / height) * BN;
    }"""),
]:
    assert s.count(old) == 1, f"the book's kernel changed: {old!r}"
    s = s.replace(old, new)
open(kernel, "w").write(s)
PY
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=(
    "BM=128 BN=128 BK=8 TM=8 TN=8"
    "BM=128 BN=128 BK=8 TM=8 TN=8 GROUP=8"
    "BM=128 BN=128 BK=8 TM=8 TN=8 GROUP=16"
    "BM=128 BN=256 BK=8 TM=8 TN=16 MINB=1"
    "BM=128 BN=256 BK=8 TM=8 TN=16 MINB=1 GROUP=8"
    "BM=256 BN=128 BK=8 TM=16 TN=8 MINB=1"
    "BM=256 BN=128 BK=8 TM=16 TN=8 MINB=1 GROUP=8"
    "BM=128 BN=128 BK=16 TM=8 TN=8 MINB=1"
    "BM=64 BN=128 BK=8 TM=8 TN=8 MINB=3"
    "BM=128 BN=64 BK=8 TM=8 TN=8 MINB=3")
for size in ${SIZES:-4096}; do
    for c in "${configs[@]}"; do
        sets=(); for s in $c; do sets+=(--set "$s"); done
        line=$(.device/bin/runner bench p19_sgemm_warptile --book "$book" --backend cuda --samples 20 \
            --set SIZE=$size "${sets[@]}" 2>&1 | grep -E "device time|error|Error|wrong|FAIL" | tr '\n' ' ' | tr -s ' ')
        echo "sgemm $size [$c] | $line"
    done
done
python3 .ci/gpu/baseline/cublas.py ${SIZES:-4096} | grep -v wrote
