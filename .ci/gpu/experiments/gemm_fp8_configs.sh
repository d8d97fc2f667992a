#!/usr/bin/env bash
# There (the GPU machine, after .ci/gpu/pack): Puzzle 35 step 7 (FP8) at both
# bench sizes, in the configurations its page discusses (a persistent grid
# of 132 blocks throughout, as the spec's bench cases). The promoted kernel
# (PROMOTE = 1: the tensor cores' sums added into FP32 every tile) at 128 x
# 128 tiles with several stage counts and promotion intervals; the same
# kernel at 128 x 256 tiles, whose accumulators and totals (256 floats a
# thread) exceed the 168 registers a thread of 384 can have; and no
# promotion before the last tile (fast accumulation), whose sums at 8,192
# fail the BF16 rule. Each line: the constants, the median, any error.
#   bash .ci/gpu/experiments/gemm_fp8_configs.sh
set -uo pipefail
source "$(dirname "$0")/bench_env.sh"
for size in 4096 8192; do
    for stages in 4 5 6; do
        b cuda p35_gemm_fp8 SIZE=$size BN=128 STAGES=$stages PROMOTE=1
    done
    b cuda p35_gemm_fp8 SIZE=$size BN=128 STAGES=4 PROMOTE=2
    b cuda p35_gemm_fp8 SIZE=$size BN=128 STAGES=4 PROMOTE=1000000
    b cuda p35_gemm_fp8 SIZE=$size BN=256 STAGES=4 PROMOTE=1
    b cuda p35_gemm_fp8 SIZE=$size BN=256 STAGES=4 PROMOTE=1000000
done
