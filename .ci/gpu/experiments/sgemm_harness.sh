#!/usr/bin/env bash
# There (the GPU machine): sgemm_variants.cu's knobs, each built with the
# toolkit's nvcc and timed beside cublasSgemm by sgemm_harness.cu, one line each.
#   SIZES="4096 8192" bash .ci/gpu/experiments/sgemm_harness.sh ["-DASYNC=1 -DSTAGES=3" ...]
set -uo pipefail
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | sort -V | tail -1)
[ -n "$nvcc" ] || { echo "no nvcc here"; exit 1; }
work=$(mktemp -d)
cd .ci/gpu/experiments
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=("" "-DPAD=4" "-DASYNC=1 -DPAD=4")
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    ( "$nvcc" -O3 -arch=native -std=c++17 $c -o "$work/h$i" sgemm_harness.cu -lcublas 2>&1 | grep -E "error" ) &
done
wait
for size in ${SIZES:-4096}; do
    i=0
    for c in "${configs[@]}"; do
        i=$((i + 1))
        echo "sgemm [${c:-book}] | $("$work/h$i" "$size" 2>&1)"
    done
done
