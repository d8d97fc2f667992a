#!/usr/bin/env bash
# There (the GPU machine): how close Puzzle 18 step 4's scan comes to keeping
# the memory busy, beside the copy that sets its roof (the runner's
# calibration kernel, stream_copy, on the same 2^28 floats, 4,096 blocks of
# 256 as `runner calibrate` launches it), as Nsight Compute measures both: DRAM throughput as a share of the
# GPU's peak, bytes moved, what bounds the blocks a multiprocessor holds, and
# why warps stalled. The scan is built by scan_harness.sh's route (nvcc) at
# step 4's shape; its sixth launch is profiled, after five untimed ones.
#   bash .ci/gpu/experiments/scan_profile.sh
set -euo pipefail
source "$(dirname "$0")/ncu_common.sh"
nvcc=$(command -v nvcc || ls /usr/local/cuda*/bin/nvcc 2>/dev/null | sort -V | tail -1)
metrics=$stall_metrics
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,dram__bytes_read.sum,dram__bytes_write.sum,gpu__time_duration.sum
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,launch__registers_per_thread,launch__shared_mem_per_block_static
metrics+=,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem
metrics+=,launch__occupancy_limit_warps,launch__occupancy_limit_blocks
work=$(mktemp -d)
(cd "$(dirname "$0")" && "$nvcc" -O3 -arch=native -std=c++17 -DROWS=8 -DASYNC=1 -o "$work/scan" scan_harness.cu)
"$ncu" --clock-control none --kernel-name regex:"^scan$" --launch-skip 5 --launch-count 1 --metrics "$metrics" "$work/scan"
"$ncu" --clock-control none --kernel-name stream_copy --launch-skip 2 --launch-count 1 --metrics "$metrics" python3 -c "
import cupy as cp
source = open('runner/engine/src/perf/ceilings/ceilings.cu').read()
copy = cp.RawModule(code=source, backend='nvrtc').get_function('stream_copy')
x = cp.random.rand(1 << 28, dtype=cp.float32)
y = cp.empty_like(x)
for _ in range(3):
    copy((4096,), (256,), (y, x, cp.uint32(1 << 26)))
cp.cuda.Device().synchronize()
"
