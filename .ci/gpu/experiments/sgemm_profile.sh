#!/usr/bin/env bash
# There (the GPU machine): what holds Puzzle 19 step 5 below cuBLAS's FP32
# product, as Nsight Compute measures both at 4096^3. The same metrics for
# both kernels: the FMA pipe's share, issue-slot use, occupancy and registers,
# shared-memory wavefronts and conflicts, and why warps stalled. Clocks are
# left alone (--clock-control none), as in the benchmarks.
#   bash .ci/gpu/experiments/sgemm_profile.sh
set -euo pipefail
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | sort -V | tail -1)
metrics=sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,launch__registers_per_thread,launch__block_size,launch__grid_size
metrics+=,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics+=,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum
metrics+=,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
metrics+=,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
metrics+=,smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_short_scoreboard_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_math_pipe_throttle_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_mio_throttle_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_wait_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio
metrics+=,smsp__average_warps_issue_stalled_dispatch_stall_per_issue_active.ratio
# One launch of each after a warm-up: ours through CuPy's NVRTC at the
# benchmark's constants, then torch.mm with TF32 off (cuBLAS's kernel).
"$ncu" --clock-control none --kernel-name regex:"sgemm|gemm" --launch-skip 1 --launch-count 2 \
    --metrics "$metrics" python3 - <<'PY'
import re, cupy as cp, torch
source = open("kernels/p19_sgemm_warptile/sgemm_warptile.cu").read()
tiles = dict(BM=128, BN=128, BK=8, TM=8, TN=8)
for key, value in tiles.items():
    source = re.sub(rf"^#define {key} \d+$", f"#define {key} {value}", source, flags=re.M)
n = 4096
a = cp.random.rand(n, n, dtype=cp.float32)
b = cp.random.rand(n, n, dtype=cp.float32)
out = cp.zeros_like(a)
kernel = cp.RawModule(code=source, options=("--std=c++17", "-arch=sm_90"), backend="nvrtc").get_function("sgemm_warptile")
threads = (tiles["BM"] // tiles["TM"]) * (tiles["BN"] // tiles["TN"])
for _ in range(2):
    kernel((n // tiles["BN"], n // tiles["BM"]), (threads,), (out, a, b, cp.uint32(n)))
cp.cuda.Device().synchronize()
torch.backends.cuda.matmul.allow_tf32 = False
ta, tb = torch.rand(n, n, device="cuda"), torch.rand(n, n, device="cuda")
for _ in range(2):
    torch.mm(ta, tb)
torch.cuda.synchronize()
PY
