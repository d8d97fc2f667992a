#!/usr/bin/env bash
# There (the GPU machine): scan_variants.cu's knobs at 2^28 floats, built with
# the toolkit's nvcc and timed by scan_harness.cu, one line each.
#   bash .ci/gpu/experiments/scan_harness.sh ["-DROWS=8 -DASYNC=1" ...]
set -uo pipefail
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | sort -V | tail -1)
[ -n "$nvcc" ] || { echo "no nvcc here"; exit 1; }
work=$(mktemp -d)
cd .ci/gpu/experiments
configs=("$@")
[ ${#configs[@]} -gt 0 ] || configs=("" "-DROWS=8")
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    ( "$nvcc" -O3 -arch=native -std=c++17 $c -o "$work/h$i" scan_harness.cu 2>&1 | grep -E "error" ) &
done
wait
i=0
for c in "${configs[@]}"; do
    i=$((i + 1))
    grid=$(echo "$c" | grep -oP '(?<=GRID=)\d+' || true)
    echo "scan [${c:-book}] | $("$work/h$i" $grid 2>&1)"
done
