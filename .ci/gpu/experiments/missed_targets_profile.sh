#!/usr/bin/env bash
# shellcheck disable=SC2154  # ncu and stall_metrics are set by ncu_common.sh, sourced below
# There (the GPU machine, after .ci/gpu/pack): Nsight Compute on each kernel
# that misses its target against a library, beside the library's own kernel
# on the same size, with the same sections, so that a page can say what
# limits the book's kernel and what the library does differently:
#   - Puzzle 35 step 8 (gemm_persistent, BF16) at 4,096 beside cuBLAS's BF16 GEMM;
#   - Puzzle 35's FP8 step at 4,096 beside torch._scaled_mm;
#   - Puzzle 45's key-block kernel at its bench case beside SDPA's flash backward.
# Full-mantissa inputs on both sides (uniform, as the benchmarks draw them).
#   bash .ci/gpu/experiments/missed_targets_profile.sh [OUTDIR]
# writes OUTDIR/ncu-<puzzle>-<gpu>.txt (default: results/profiles).
set -uo pipefail
source "$(dirname "$0")/bench_env.sh"
source "$(dirname "$0")/ncu_common.sh"
out=${1:-results/profiles}
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr 'A-Z' 'a-z' | sed -E 's/[^a-z0-9]+/-/g; s/^-|-$//g')
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
          --section Occupancy --section LaunchStats --section WarpStateStats --metrics "$stall_metrics")
quiet() { grep -vE "^==PROF==|^\s*$"; }

# profile FILE TITLE KERNEL-REGEX SKIP COUNT COMMAND...: one ncu run appended to FILE.
profile() {
    local file=$1 title=$2 kernel=$3 skip=$4 count=$5; shift 5
    { echo "== $title"; echo "# ncu --kernel-name regex:'$kernel' --launch-skip $skip --launch-count $count --clock-control none (sections: ${sections[*]})"
      "$ncu" --kernel-name "regex:$kernel" --launch-skip "$skip" --launch-count "$count" --clock-control none \
          "${sections[@]}" "$@" 2>&1 | quiet; } >> "$file"
}

f=$out/ncu-p35_gemm_persistent-$gpu.txt
echo "# Nsight Compute, $(date -u +%F), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" > "$f"
profile "$f" "p35_gemm_persistent SIZE=4096 (the book's step 8)" '^gemm_persistent$' 2 1 \
    .device/bin/runner bench p35_gemm_persistent --backend cuda --samples 3 --set SIZE=4096
profile "$f" "cuBLAS BF16 GEMM, torch.mm at 4096 (uniform [-4, 4) inputs)" 'nvjet|gemm|sm90' 2 1 python3 -c "
import torch
a = ((torch.rand(4096, 4096, device='cuda') * 8 - 4)).bfloat16()
b = ((torch.rand(4096, 4096, device='cuda') * 8 - 4)).bfloat16()
for _ in range(4): torch.mm(a, b)
torch.cuda.synchronize()"

f=$out/ncu-p35_gemm_fp8-$gpu.txt
echo "# Nsight Compute, $(date -u +%F), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" > "$f"
profile "$f" "p35_gemm_fp8 SIZE=4096 (the book's FP8 step)" '^gemm_fp8$' 2 1 \
    .device/bin/runner bench p35_gemm_fp8 --backend cuda --samples 3 --set SIZE=4096
profile "$f" "cuBLAS FP8 GEMM, torch._scaled_mm at 4096 (per-tensor scales, BF16 out)" 'nvjet|gemm|sm90' 2 1 python3 -c "
import torch
a = ((torch.rand(4096, 4096, device='cuda') * 8 - 4)).to(torch.float8_e4m3fn)
b = ((torch.rand(4096, 4096, device='cuda') * 8 - 4)).to(torch.float8_e4m3fn).t()
s = torch.tensor(1.0, device='cuda')
for _ in range(4): torch._scaled_mm(a, b, scale_a=s, scale_b=s, out_dtype=torch.bfloat16)
torch.cuda.synchronize()"

f=$out/ncu-p45_attention_backward-$gpu.txt
echo "# Nsight Compute, $(date -u +%F), $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader)" > "$f"
profile "$f" "p45_attention_backward key_block HEADS=64 SEQ=4096 DIM=128 (the book's backward)" '^key_block$' 2 1 \
    .device/bin/runner bench p45_attention_backward --backend cuda --samples 3 --set HEADS=64 --set SEQ=4096 --set DIM=128 --set BR=64 --set BC=128
profile "$f" "SDPA flash backward, 1 x 64 heads x 4096 x 128, BF16" 'flash.*bwd|bwd.*flash' 1 2 python3 -c "
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
q, k, v, d = (torch.rand(1, 64, 4096, 128, device='cuda').mul(2).sub(1).bfloat16() for _ in range(4))
q, k, v = (t.requires_grad_() for t in (q, k, v))
with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
    o = F.scaled_dot_product_attention(q, k, v)
    for _ in range(3): torch.autograd.grad(o, (q, k, v), d, retain_graph=True)
torch.cuda.synchronize()"
echo "profiles in $out:"; ls -la "$out"
