#!/usr/bin/env bash
# There (the GPU machine, carrying .device/bin/runner and .gl): the tile
# shapes Puzzle 31's fused attention could use at its benchmark size (64
# heads, 4,096 tokens, DIM 128), timed by `runner bench` one after another,
# so the spec's `bench` entry is the fastest measured rather than guessed.
# WGSL's tiles must fit the 48 KiB of workgroup memory Vulkan gives there.
#   bash .ci/gpu/experiments/attention_configs.sh [cuda|wgpu ...]
set -uo pipefail
export GPU_PUZZLES_BOOK=$PWD XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvrtc=$(ls -d /usr/local/cuda*/targets/x86_64-linux/lib 2>/dev/null | sort -V | tail -1)
export LD_LIBRARY_PATH=${nvrtc}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(cuda wgpu)

b() { # backend puzzle settings...
    local backend=$1 puzzle=$2; shift 2
    local sets=() s
    for s in "$@"; do sets+=(--set "$s"); done
    local line
    line=$(.device/bin/runner bench "$puzzle" --backend "$backend" --samples 10 "${sets[@]}" 2>&1 \
        | grep -E "device time|bound|error|Error|checked|wrong" | tr '\n' ' ' | tr -s ' ')
    echo "$backend $puzzle $* | $line"
}

size=(HEADS=64 SEQ=4096 DIM=128)
for backend in "${backends[@]}"; do
    # (BR, BC): shared memory is 4 * (128 * BR + 128 * BC + BC * BR) bytes.
    for tiles in "32 32" "64 32" "32 64" "64 64" "128 32"; do
        set -- $tiles
        b "$backend" p31_attention_fused "${size[@]}" BR=$1 BC=$2
    done
done
