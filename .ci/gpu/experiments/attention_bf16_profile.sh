#!/usr/bin/env bash
# There (the GPU machine): what holds Puzzle 36's tensor-core attention
# below PyTorch's flash backend, as Nsight Compute measures both at 16 heads
# of 4,096 tokens, DIM 128 (the benchmark's second size; ncu replays each
# kernel, so the smaller one keeps the run short). The same metrics for both
# kernels: how busy the tensor pipe and the XU (the exponentials) were, the
# warps' occupancy, the shared-memory conflicts, and why warps stalled.
#   bash .ci/gpu/experiments/attention_bf16_profile.sh
set -euo pipefail
source "$(dirname "$0")/ncu_common.sh"
metrics=$stall_metrics
metrics+=,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active
metrics+=,sm__inst_executed_pipe_xu.avg.pct_of_peak_sustained_active
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics+=,launch__registers_per_thread,launch__occupancy_limit_registers
"$ncu" --kernel-name regex:"attention_bf16|flash" --metrics "$metrics" python3 - <<'PY'
import re, cupy as cp, torch
source = open("kernels/tensor/p36_attention_bf16/attention_bf16.cu").read()
tiles = dict(DIM=128, BR=128, BC=32, WR=32)
for key, value in tiles.items():
    source = re.sub(rf"^#define {key} \d+$", f"#define {key} {value}", source, flags=re.M)
heads, seq, dim = 16, 4096, 128
# BF16 bit patterns of floats in [-4, 4), as the baseline's inputs.
q, k, v = (((cp.random.rand(heads, seq, dim, dtype=cp.float32) * 8 - 4).view(cp.uint32) >> 16).astype(cp.uint16)
           for _ in range(3))
out = cp.zeros_like(q)
kernel = cp.RawModule(code=source, options=("--std=c++17", "-arch=sm_90", "-I/usr/local/cuda/include"),
                      backend="nvrtc").get_function("attention_bf16")
shared = 2 * dim * (tiles["BR"] + 4 * tiles["BC"])
kernel.max_dynamic_shared_size_bytes = shared
kernel((seq // tiles["BR"], heads), (tiles["BR"] // tiles["WR"] * 32,), (out, q, k, v, cp.uint32(seq)), shared_mem=shared)
cp.cuda.Device().synchronize()
from torch.nn.attention import SDPBackend, sdpa_kernel
tq, tk, tv = (torch.rand(4, 4, seq, dim, device="cuda", dtype=torch.bfloat16) * 8 - 4 for _ in range(3))
with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
    torch.nn.functional.scaled_dot_product_attention(tq, tk, tv)
torch.cuda.synchronize()
PY
