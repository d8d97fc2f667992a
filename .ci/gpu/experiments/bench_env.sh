# Sourced by the experiments here (on the GPU machine, carrying
# .device/bin/runner and .gl): the Vulkan loader unpacked, NVIDIA's driver
# and NVRTC found, and `b`, which times one configuration with `runner bench`
# and prints it on one line.
export GPU_PUZZLES_BOOK=$PWD XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)}
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvrtc=$(ls -d /usr/local/cuda*/targets/x86_64-linux/lib 2>/dev/null | sort -V | tail -1)
export LD_LIBRARY_PATH=${nvrtc}${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

# b BACKEND PUZZLE NAME=VALUE...: `runner bench` at those constants, SAMPLES
# timed runs (default 20); its time, its roof line and any error, on one line.
b() {
    local backend=$1 puzzle=$2; shift 2
    local sets=() s
    for s in "$@"; do sets+=(--set "$s"); done
    local line
    line=$(.device/bin/runner bench "$puzzle" --backend "$backend" --samples "${SAMPLES:-20}" "${sets[@]}" 2>&1 \
        | grep -E "device time|bound|error|Error|wrong" | tr '\n' ' ' | tr -s ' ')
    echo "$backend $puzzle $* | $line"
}
