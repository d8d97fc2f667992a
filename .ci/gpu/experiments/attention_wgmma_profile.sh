#!/usr/bin/env bash
# There (the GPU machine, after .ci/gpu/pack): Nsight Compute on Puzzle 36
# steps 3 (the softmax beside the products) and 4 (the consumers taking
# turns) at 16 heads of 4,096 tokens, DIM 128, beside the kernel of SDPA's
# cuDNN backend at the same shape: throughput of the SM and of memory, the
# pipes, registers and occupancy, and why warps stalled.
#   bash .ci/gpu/experiments/attention_wgmma_profile.sh
set -uo pipefail
source "$(dirname "$0")/bench_env.sh"
source "$(dirname "$0")/ncu_common.sh"
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats)
for step in overlap pingpong; do
    echo "== p36_attention_$step HEADS=16 SEQ=4096 DIM=128 STAGES=3"
    "$ncu" --kernel-name attention_$step --launch-skip 2 --launch-count 1 --clock-control none \
        "${sections[@]}" --metrics "$stall_metrics" \
        .device/bin/runner bench p36_attention_$step --backend cuda --samples 3 --set HEADS=16 \
        --set SEQ=4096 --set DIM=128 --set STAGES=3 2>&1 | grep -vE "^==PROF==|^\s*$"
done
echo "== SDPA, cuDNN backend, 4 x 4 heads x 4096 x 128 BF16"
"$ncu" --kernel-name regex:cudnn --launch-skip 1 --launch-count 1 --clock-control none "${sections[@]}" \
    --metrics "$stall_metrics" python3 - <<'PY' 2>&1 | grep -vE "^==PROF==|^\s*$"
import torch
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v = (torch.rand(4, 4, 4096, 128, device="cuda", dtype=torch.bfloat16) * 8 - 4 for _ in range(3))
with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
    for _ in range(2):
        torch.nn.functional.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
PY
