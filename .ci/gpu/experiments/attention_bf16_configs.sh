#!/usr/bin/env bash
# There (the GPU machine, carrying .device/bin/runner and .gl): the tile
# shapes Puzzle 36's tensor-core attention could use at its benchmark size
# (64 heads, 4,096 tokens, DIM 128), timed by `runner bench` one after
# another, so the spec's `bench` entry is the fastest measured.
#   bash .ci/gpu/experiments/attention_bf16_configs.sh
set -uo pipefail
SAMPLES=${SAMPLES:-10}
source "$(dirname "$0")/bench_env.sh"

size=(HEADS=64 SEQ=4096 DIM=128)
# (BR, BC, WR): BR / WR warps a block, each owning WR query rows;
# 2 * 128 * (BR + 4 * BC) bytes of shared memory.
for tiles in "64 64 16" "128 64 16" "128 32 16" "64 64 32" "128 64 32" "128 32 32" "256 64 32"; do
    set -- $tiles
    b cuda p36_attention_bf16 "${size[@]}" BR=$1 BC=$2 WR=$3
done
