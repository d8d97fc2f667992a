#!/usr/bin/env bash
# There (the GPU machine): shared-memory bank conflicts of Puzzle 35 step 2
# (mma.sync and ldmatrix) as Nsight Compute counts them, with the XOR swizzle
# and without it (the same kernel with `swizzle` returning its chunk), at
# 4,096 with the bench tiles. Step 2's page explains the swizzle; this is the
# profiler's evidence. One table of ncu's metrics per kernel.
#   bash .ci/gpu/experiments/tensor_gemm_conflicts.sh
set -euo pipefail
ncu=$(command -v ncu || ls /usr/local/cuda*/bin/ncu 2>/dev/null | sort -V | tail -1)
metrics=l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
metrics+=,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum
metrics+=,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum
metrics+=,smsp__inst_executed_op_ldsm.sum
"$ncu" --kernel-name regex:gemm_mma --metrics "$metrics" python3 - <<'PY'
import re, cupy as cp
source = open("kernels/tensor/p35_gemm_mma/gemm_mma.cu").read()
for key, value in dict(BM=128, BN=128, BK=64, WM=64, WN=32).items():
    source = re.sub(rf"^#define {key} \d+$", f"#define {key} {value}", source, flags=re.M)
plain = source.replace("return chunk ^ (row % 8);", "return chunk;").replace("gemm_mma(", "gemm_mma_plain(")
assert "gemm_mma_plain(" in plain and "return chunk;" in plain
size = 4096
out, a, b = (cp.zeros((size, size), dtype=cp.uint16) for _ in range(3))
for name, code in [("gemm_mma", source), ("gemm_mma_plain", plain)]:
    kernel = cp.RawModule(code=code, options=("--std=c++17", "-arch=sm_90", "-I/usr/local/cuda/include"),
                          backend="nvrtc").get_function(name)
    kernel((size // 128, size // 128), (256,), (out, a, b, cp.uint32(size)))
cp.cuda.Device().synchronize()
PY
