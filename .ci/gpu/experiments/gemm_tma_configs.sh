#!/usr/bin/env bash
# There (the GPU machine, carrying .device/bin/runner and .gl): the shapes
# Puzzle 35's step 5 (TMA copies, a producer warpgroup and CONSUMERS
# warpgroups of wgmma) could use at 4,096 and 8,192, timed by `runner bench`
# (which encodes the tensor maps as the book's runs do) one after another,
# then cuBLAS's BF16 product in the same session, so the spec's `bench`
# entries are the fastest measured and each ratio comes from one run.
#   [SIZES="4096 8192"] bash .ci/gpu/experiments/gemm_tma_configs.sh
set -uo pipefail
SAMPLES=${SAMPLES:-10}
source "$(dirname "$0")/bench_env.sh"

for size in ${SIZES:-4096 8192}; do
    # (BN, STAGES, CONSUMERS, GROUP): STAGES * (CONSUMERS * 64 + BN) * 128 bytes
    # of tiles; GROUP rows of tiles walked together (1: row by row).
    for shape in "256 4 2 8" "256 3 2 8" "256 4 2 1" "256 3 2 1" "256 4 2 4" "256 4 2 16" "128 6 2 8"; do
        set -- $shape
        b cuda p35_gemm_tma SIZE=$size BN=$1 STAGES=$2 CONSUMERS=$3 GROUP=$4
    done
done
python3 "$(dirname "$0")/../baseline/tensor.py" ${SIZES:-4096 8192} 2>&1 | grep -i "bf16\|error" || true
