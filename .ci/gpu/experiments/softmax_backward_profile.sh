#!/usr/bin/env bash
# ncu and stall_metrics are set by ncu_common.sh, sourced below.
# shellcheck disable=SC2154
# There (the GPU machine, after bench_env.sh): Nsight Compute on Puzzle 41's
# step 2 and on Inductor's kernel for the same operation (torch.compile of
# torch._softmax_backward_data), one launch each at 8,192 x 4,096, clocks as
# they run; then Inductor's generated kernel. Writes the profile that the
# chapter cites to stdout:
#   bash .ci/gpu/experiments/softmax_backward_profile.sh > results/profiles/ncu-p41_softmax_backward_registers-<gpu>.txt
set -uo pipefail
here=$(dirname "$0")
source "$here/ncu_common.sh"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
m=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
m+=,launch__grid_size,launch__block_size,launch__registers_per_thread,sm__warps_active.avg.pct_of_peak_sustained_active
m+=,lts__t_sector_hit_rate.pct,$stall_metrics
inductor=$(mktemp --suffix=.py)
cat > "$inductor" <<'PY'
import torch
torch.manual_seed(0)
y = torch.softmax(torch.rand(8192, 4096, device="cuda"), dim=1)
dy = torch.rand(8192, 4096, device="cuda")
f = torch.compile(lambda dy, y: torch._softmax_backward_data(dy, y, 1, torch.float32), dynamic=False)
for _ in range(3):
    f(dy, y)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
f(dy, y)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
PY
echo "# Nsight Compute, one launch each, clocks as they run (--clock-control none), on $gpu:"
echo "#   $ncu --clock-control none -k regex:softmax_backward_registers -c 1 --metrics <below> runner bench p41_softmax_backward_registers --backend cuda --samples 1 --set ROWS=8192 --set COLS=4096 --set TPB=256 --set VECS=4"
echo "#   $ncu --clock-control none --profile-from-start off -c 1 --metrics <below> python3 ind.py   (torch.compile of torch._softmax_backward_data, 8192 x 4096, one call profiled after three)"
echo "== ours: p41_softmax_backward_registers 8192 x 4096, TPB 256, VECS 4"
"$ncu" --clock-control none -k regex:softmax_backward_registers -c 1 --metrics "$m" \
    .device/bin/runner bench p41_softmax_backward_registers --backend cuda --samples 1 \
    --set ROWS=8192 --set COLS=4096 --set TPB=256 --set VECS=4 2>&1 \
    | grep -vE "^==PROF==|^  *$|achieved|memory-bound|output:" | tail -24
echo "== Inductor: torch.compile(_softmax_backward_data) 8192 x 4096"
"$ncu" --clock-control none --profile-from-start off -c 1 --metrics "$m" python3 "$inductor" 2>&1 \
    | grep -vE "^==PROF==|^==WARNING|^  *$" | tail -24
echo "== Inductor's kernel (TORCH_LOGS=output_code)"
TORCH_LOGS=output_code python3 "$inductor" 2>&1 | sed 's/^.*\[__output_code\] //' \
    | sed -n "/@triton.jit/,/^'''/p" | head -60
rm -f "$inductor"
