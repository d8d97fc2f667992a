// Given: what Puzzle 36's steps 2 to 4 share, for a kernel that defines
// DIM, BC, STAGES, CONSUMERS, BR, BOXES, Q_TILE, KV_TILE,
// STAGE_BYTES, S_ACC and O_ACC: the producer, the online softmax on wgmma's
// accumulators, and the output's store. Both products are the consumers'
// own, and the puzzle.
#include "tma_3d.cuh"
#include "wgmma.cuh"
#include "wgmma_attention.cuh"
#include "setmaxnreg.cuh"
#include "attention_values.cuh"

// The producer's one thread: q once, then each tile's k and v into the
// ring, a stage refilled once the consumers have handed it back. Each row
// of a tile is BOXES boxes of 64 values, one TMA copy a box.
__device__ __forceinline__ void produce(bf16* q_tile, bf16* k_tiles, bf16* v_tiles,
                                        const TensorMap* q_map, const TensorMap* k_map,
                                        const TensorMap* v_map, unsigned long long* q_full,
                                        unsigned long long* full, unsigned long long* empty,
                                        unsigned int row0, unsigned int head,
                                        unsigned int tiles) {
    barrier_arrive_expect(q_full, Q_TILE * 2);
    for (unsigned int b = 0; b < BOXES; b++) {
        tma_load_3d(q_tile + b * BR * 64, q_map, b * 64, row0, head, q_full);
    }
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int s = t % STAGES, round = t / STAGES;
        if (round > 0) {
            barrier_wait(&empty[s], (round - 1) % 2);
        }
        barrier_arrive_expect(&full[s], STAGE_BYTES);
        for (unsigned int b = 0; b < BOXES; b++) {
            tma_load_3d(k_tiles + s * KV_TILE + b * BC * 64, k_map, b * 64, t * BC, head,
                        &full[s]);
            tma_load_3d(v_tiles + s * KV_TILE + b * BC * 64, v_map, b * 64, t * BC, head,
                        &full[s]);
        }
    }
    // The block must not end while copies into its shared memory are in
    // flight: wait for the last round of each stage to land.
    for (unsigned int t = tiles > STAGES ? tiles - STAGES : 0; t < tiles; t++) {
        barrier_wait(&full[t % STAGES], t / STAGES % 2);
    }
}

// Step 1's online softmax on one tile's scores, where wgmma left them: lane
// l holds rows l / 4 (h = 0) and l / 4 + 8 (h = 1) of its warp's 16, two
// neighbouring scores of each in every 8-key column, s[4j + 2h] and
// s[4j + 2h + 1]. The scores become probabilities in place; `factor` is
// what the output so far must be multiplied by. A score of minus infinity
// (a masked key) becomes a probability of 0.
__device__ __forceinline__ void online_softmax(float (&s)[S_ACC], float (&row_max)[2],
                                               float (&row_sum)[2], float (&factor)[2],
                                               float scale) {
#pragma unroll
    for (unsigned int h = 0; h < 2; h++) {
        float tile_max = minus_infinity();
#pragma unroll
        for (unsigned int j = 0; j < BC / 8; j++) {
            tile_max = fmaxf(tile_max, fmaxf(s[4 * j + 2 * h], s[4 * j + 2 * h + 1]));
        }
        // The row's other scores are in the quad's other three lanes.
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffff, tile_max, 1));
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffff, tile_max, 2));
        float new_max = fmaxf(row_max[h], tile_max * scale);
        factor[h] = exp2f(row_max[h] - new_max);
        float tile_sum = 0.0f;
#pragma unroll
        for (unsigned int j = 0; j < BC / 8; j++) {
            s[4 * j + 2 * h] = exp2f(fmaf(s[4 * j + 2 * h], scale, -new_max));
            s[4 * j + 2 * h + 1] = exp2f(fmaf(s[4 * j + 2 * h + 1], scale, -new_max));
            tile_sum += s[4 * j + 2 * h] + s[4 * j + 2 * h + 1];
        }
        // This lane's share of the row's sum: the quad adds its four at the end.
        row_sum[h] = row_sum[h] * factor[h] + tile_sum;
        row_max[h] = new_max;
    }
}

// The output so far, both of this lane's rows, times the softmax's factors.
__device__ __forceinline__ void rescale(float (&o)[O_ACC], const float (&factor)[2]) {
#pragma unroll
    for (unsigned int j = 0; j < DIM / 8; j++) {
        o[4 * j] *= factor[0];
        o[4 * j + 1] *= factor[0];
        o[4 * j + 2] *= factor[1];
        o[4 * j + 3] *= factor[1];
    }
}

// The probabilities as the A operand of o += p v, BC / 16 steps of 16 keys:
// two neighbouring 8-key columns of the accumulators, packed to BF16 pairs,
// are one step's A fragment, as in step 1.
__device__ __forceinline__ void pack_probabilities(unsigned int (&p)[BC / 16][4],
                                                   const float (&s)[S_ACC]) {
#pragma unroll
    for (unsigned int kk = 0; kk < BC / 16; kk++) {
        p[kk][0] = pack_bf16(s[8 * kk], s[8 * kk + 1]);
        p[kk][1] = pack_bf16(s[8 * kk + 2], s[8 * kk + 3]);
        p[kk][2] = pack_bf16(s[8 * kk + 4], s[8 * kk + 5]);
        p[kk][3] = pack_bf16(s[8 * kk + 6], s[8 * kk + 7]);
    }
}

// o += p v for one step of 16 keys, at the shape DIM needs.
__device__ __forceinline__ void wgmma_output(float (&o)[O_ACC], const unsigned int (&p)[4],
                                             unsigned long long v_desc) {
#if DIM == 128
    wgmma_output_128(o, p, v_desc);
#else
    wgmma_output_64(o, p, v_desc);
#endif
}

// The finished rows: each row's sum is spread over its quad; then lane l
// stores columns 2 (l % 4) and the next of each 8-column block of both its
// rows, divided by their sums.
__device__ __forceinline__ void store_output(bf16* out, const float (&o)[O_ACC],
                                             float (&row_sum)[2], unsigned int head,
                                             unsigned int seq, unsigned int first_row) {
    unsigned int lane = threadIdx.x % 32;
#pragma unroll
    for (unsigned int h = 0; h < 2; h++) {
        row_sum[h] += __shfl_xor_sync(0xffffffff, row_sum[h], 1);
        row_sum[h] += __shfl_xor_sync(0xffffffff, row_sum[h], 2);
    }
    size_t head_offset = static_cast<size_t>(head) * seq * DIM;
    unsigned int row = first_row + lane / 4;
#pragma unroll
    for (unsigned int j = 0; j < DIM / 8; j++) {
        unsigned int col = j * 8 + lane % 4 * 2;
        bf16* at = out + head_offset + static_cast<size_t>(row) * DIM + col;
        *reinterpret_cast<__nv_bfloat162*>(at) =
            __floats2bfloat162_rn(o[4 * j] / row_sum[0], o[4 * j + 1] / row_sum[0]);
        *reinterpret_cast<__nv_bfloat162*>(at + 8 * DIM) =
            __floats2bfloat162_rn(o[4 * j + 2] / row_sum[1], o[4 * j + 3] / row_sum[1]);
    }
}
