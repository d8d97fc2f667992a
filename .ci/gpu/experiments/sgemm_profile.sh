#!/usr/bin/env bash
# There (the GPU machine): what holds a Puzzle 19 step (step 5 unless KERNEL
# names another) below cuBLAS's FP32 product, as Nsight Compute measures both
# at 4096^3 (or N^3). The same metrics for both kernels: the FMA pipe's share,
# issue-slot use, occupancy and registers, shared-memory wavefronts and
# conflicts, and why warps stalled. Clocks are left alone
# (--clock-control none), as in the benchmarks.
#   bash .ci/gpu/experiments/sgemm_profile.sh
#   KERNEL=kernels/performance/p19_sgemm_thick/sgemm_thick.cu:sgemm_thick:BM=128,BN=128,BK=16,TM=8,TN=16,PAD=4 \
#       bash .ci/gpu/experiments/sgemm_profile.sh
# With SASS=DIR, the stall reasons are sampled per machine instruction instead
# (sass_stalls.py sums them).
set -euo pipefail
source "$(dirname "$0")/ncu_common.sh"
metrics=$stall_metrics
metrics+=,sm__inst_executed_pipe_fma.avg.pct_of_peak_sustained_active
metrics+=,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,launch__registers_per_thread,launch__block_size,launch__grid_size
metrics+=,launch__shared_mem_per_block_static,launch__shared_mem_per_block_dynamic
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics+=,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum
metrics+=,dram__bytes_read.sum,lts__t_sector_hit_rate.pct
metrics+=,sm__cycles_elapsed.avg.per_second,gpu__time_duration.sum
# One launch of each after a warm-up: ours through CuPy's NVRTC at the
# benchmark's constants, then torch.mm with TF32 off (cuBLAS's kernel).
export KERNEL=${KERNEL:-kernels/performance/p19_sgemm_warptile/sgemm_warptile.cu:sgemm_warptile:BM=128,BN=128,BK=8,TM=8,TN=8}
launch=$(cat <<'PY'

import os, re, cupy as cp, torch
path, name, consts = os.environ["KERNEL"].split(":")
source = open(path).read()
tiles = {k: int(v) for k, v in (kv.split("=") for kv in consts.split(","))}
for key, value in tiles.items():
    source = re.sub(rf"^#define {key} \d+$", f"#define {key} {value}", source, flags=re.M)
n = int(os.environ.get("N", "4096"))
a = cp.random.rand(n, n, dtype=cp.float32)
b = cp.random.rand(n, n, dtype=cp.float32)
out = cp.zeros_like(a)
kernel = cp.RawModule(code=source, options=("--std=c++17", "-arch=sm_90"), backend="nvrtc").get_function(name)
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
)
select=(--clock-control none --kernel-name regex:"sgemm|gemm" --launch-skip 1 --launch-count 2)
if [ -z "${SASS:-}" ]; then
    "$ncu" "${select[@]}" --metrics "$metrics" python3 -c "$launch"
else
    # Where in the machine code the warps stalled: every SASS instruction of
    # both kernels with its sampled stall reasons, as CSV in $SASS/, and the
    # share of the samples each reason took.
    mkdir -p "$SASS"
    "$ncu" "${select[@]}" --section SourceCounters --section WarpStateStats -f -o "$SASS/report" python3 -c "$launch"
    "$ncu" -i "$SASS/report.ncu-rep" --page source --csv --print-source sass > "$SASS/sass.csv"
    python3 "$(dirname "$0")/sass_stalls.py" "$SASS/sass.csv"
fi
