#!/usr/bin/env bash
# There (the GPU machine, carrying .device/bin/runner and .gl): the block
# shapes Puzzle 28's kernels could use at each benchmark size, timed by
# `runner bench` one after another, so the spec's `bench` entries are the
# fastest measured rather than guessed. Prints one line per configuration.
#   bash .ci/gpu/experiments/softmax_configs.sh [cuda|wgpu ...]
set -uo pipefail
source "$(dirname "$0")/bench_env.sh"
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(cuda wgpu)

for backend in "${backends[@]}"; do
    for rows_cols in "8192 4096" "32768 1024" "61440 128"; do
        set -- $rows_cols
        r="ROWS=$1" c="COLS=$2"
        for tpb in 128 256 512 1024; do
            b "$backend" p28_softmax_online "$r" "$c" TPB=$tpb
        done
        for tpb in 64 128 256; do
            b "$backend" p28_softmax_warp "$r" "$c" TPB=$tpb
        done
        # Register versions whose capacity (4 * VECS * TPB) is the row.
        for tpb in 32 64 128 256 512 1024; do
            vecs=$(( $2 / (4 * tpb) ))
            [ "$vecs" -ge 1 ] && [ "$vecs" -le 16 ] || continue
            b "$backend" p28_softmax_registers "$r" "$c" TPB=$tpb VECS=$vecs
        done
    done
done
