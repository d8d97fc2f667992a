#!/usr/bin/env bash
# There (the GPU machine, after .ci/gpu/pack): Nsight Compute on Puzzle 35
# step 7's FP8 kernel at 4,096, promoted (128 x 128 tiles) and with fast
# accumulation (128 x 256), beside cuBLAS's two FP8 kernels at the same size
# (torch._scaled_mm, default and use_fast_accum): throughput of the SM and
# of memory, the tensor pipes, registers and occupancy.
#   bash .ci/gpu/experiments/gemm_fp8_profile.sh
set -uo pipefail
source "$(dirname "$0")/bench_env.sh"
source "$(dirname "$0")/ncu_common.sh"
sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section LaunchStats)
for sets in "BN=128 STAGES=4 PROMOTE=1" "BN=256 STAGES=4 PROMOTE=1000000"; do
    args=()
    for s in $sets; do args+=(--set "$s"); done
    echo "== p35_gemm_fp8 SIZE=4096 $sets"
    "$ncu" --kernel-name gemm_fp8 --launch-skip 2 --launch-count 1 --clock-control none "${sections[@]}" \
        .device/bin/runner bench p35_gemm_fp8 --backend cuda --samples 3 --set SIZE=4096 "${args[@]}" 2>&1 \
        | grep -vE "^==PROF==|^\s*$"
done
echo "== cuBLAS FP8, torch._scaled_mm at 4096, default then use_fast_accum"
# Two calls of each; the second default call and the first fast one are profiled.
"$ncu" --kernel-name regex:nvjet --launch-skip 1 --launch-count 2 --clock-control none "${sections[@]}" python3 - <<'PY' 2>&1 | grep -vE "^==PROF==|^\s*$"
import torch
a = (torch.rand(4096, 4096, device="cuda") * 2 - 1).mul(448).to(torch.float8_e4m3fn)
b = (torch.rand(4096, 4096, device="cuda") * 2 - 1).mul(448).to(torch.float8_e4m3fn).t()
s = torch.tensor(1 / 448, device="cuda")
for fast in (False, False, True, True):
    torch._scaled_mm(a, b, scale_a=s, scale_b=s, out_dtype=torch.bfloat16, use_fast_accum=fast)
torch.cuda.synchronize()
PY
