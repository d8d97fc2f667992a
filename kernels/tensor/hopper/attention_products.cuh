// Given, from Puzzle 36's step 3 on: step 2's two products, each issued and
// committed as one group, not awaited. For a kernel that includes
// attention.cuh.

// s = q kᵀ from the stage's k, for this consumer's rows of q.
__device__ __forceinline__ void issue_scores(float (&scores)[S_ACC], const bf16* q_rows,
                                             const bf16* k_tile) {
    wgmma_fence();
#pragma unroll
    for (unsigned int kk = 0; kk < DIM / 16; kk++) {
        unsigned int box = kk / 4, column = kk % 4 * 16;
        wgmma_scores_128(scores, descriptor(q_rows + box * BR * 64 + column, 16, 1024),
                         descriptor(k_tile + box * BC * 64 + column, 16, 1024), kk > 0);
    }
    wgmma_commit();
}

// o += p v from the stage's v, p in registers.
__device__ __forceinline__ void issue_output(float (&o)[O_ACC], const unsigned int (&p)[BC / 16][4],
                                             const bf16* v_tile) {
    wgmma_fence();
#pragma unroll
    for (unsigned int kk = 0; kk < BC / 16; kk++) {
        wgmma_output(o, p[kk], descriptor(v_tile + kk * 16 * 64, BC * 128, 1024));
    }
    wgmma_commit();
}
