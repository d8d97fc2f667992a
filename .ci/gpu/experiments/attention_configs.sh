#!/usr/bin/env bash
# There (the GPU machine, carrying .device/bin/runner and .gl): the tile
# shapes Puzzle 31's fused attention could use at its benchmark size (64
# heads, 4,096 tokens, DIM 128), timed by `runner bench` one after another,
# so the spec's `bench` entry is the fastest measured rather than guessed.
# WGSL's tiles must fit the 48 KiB of workgroup memory Vulkan gives there.
#   bash .ci/gpu/experiments/attention_configs.sh [cuda|wgpu ...]
set -uo pipefail
SAMPLES=${SAMPLES:-10}
source "$(dirname "$0")/bench_env.sh"
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(cuda wgpu)

size=(HEADS=64 SEQ=4096 DIM=128)
for backend in "${backends[@]}"; do
    # (BR, BC): shared memory is 4 * (128 * BR + 128 * BC + BC * BR) bytes.
    for tiles in "32 32" "64 32" "32 64" "64 64" "128 32"; do
        set -- $tiles
        b "$backend" p31_attention_fused "${size[@]}" BR=$1 BC=$2
    done
done
