// Puzzle 36: attention on the tensor cores. Puzzle 31's fused scheme (a block
// owns BR query rows and walks the keys BC at a time, with the online
// softmax) with Puzzle 35's fragments doing both products in BF16:
// s = q kᵀ with mma.sync, the softmax on the accumulators where they lie,
// then o += p v with the probabilities fed back as BF16 fragments. Each warp
// owns WR query rows, whose scores and output stay in its registers; only
// q, k and v pass through shared memory. q, k, v and out are
// [HEADS, SEQ, DIM] BF16; SEQ is a multiple of BR and BC.
#include <cuda_bf16.h>

#define DIM 64
#define BR 32
#define BC 32
// Query rows a warp owns: 16 (one m16 tile) or 32 (two).
#define WR 16
#define MT (WR / 16)
#define WARP 32
#define WARPS (BR / WR)
#define THREADS (WARPS * WARP)
// A row of q, k or v is CHUNKS 16-byte chunks: one ldmatrix row, one copy.
#define CHUNKS (DIM / 8)
// s = q kᵀ: KD steps of 16 along DIM, NS tiles of 8 keys.
#define KD (DIM / 16)
#define NS (BC / 8)
// o += p v: KS steps of 16 keys, ND tiles of 8 columns of DIM.
#define KS (BC / 16)
#define ND (DIM / 8)
static_assert(CHUNKS % 8 == 0, "the swizzle permutes 8 chunks: DIM is a multiple of 64");
static_assert(BC % 16 == 0, "whole k-steps of keys for p v");
static_assert(WR % 16 == 0, "a warp owns whole m16 tiles of rows");

typedef __nv_bfloat16 bf16;

#include "../hopper/mma.cuh"
#include "../hopper/async_copy.cuh"
#include "../hopper/attention_values.cuh"


// Given: `rows` consecutive rows of a [SEQ, DIM] matrix into a swizzled tile.
__device__ __forceinline__ void load_rows_async(bf16* tile, const bf16* from, unsigned int rows) {
    for (unsigned int i = threadIdx.x; i < rows * CHUNKS; i += THREADS) {
        unsigned int r = i / CHUNKS, c = i % CHUNKS;
        copy_async_16(&tile[r * DIM + swizzle(r, c) * 8], &from[r * DIM + c * 8]);
    }
}

// Given: s = q kᵀ for the warp's WR rows and the tile's BC keys, q read as
// A fragments at each step along DIM (a warp of 32 rows has no registers
// left to keep them). Each k fragment serves all MT m-tiles. k is stored
// a key a row, which is already the "col" layout mma.sync wants for its b:
// ldmatrix without .trans gives each lane two neighbouring values of DIM for
// one key. Matrices 0 and 1 are keys j*8.. at the step's two halves of 8,
// matrices 2 and 3 the same for keys (j + 1)*8...
__device__ __forceinline__ void scores(float (&s)[MT][NS][4], const bf16* q_tile,
                                       const bf16* k_tile, unsigned int warp, unsigned int lane) {
#pragma unroll
    for (unsigned int kk = 0; kk < KD; kk++) {
        unsigned int qf[MT][4];
#pragma unroll
        for (unsigned int i = 0; i < MT; i++) {
            unsigned int r = warp * WR + i * 16 + lane % 16;
            unsigned int c = kk * 2 + lane / 16;
            ldmatrix_x4(qf[i], &q_tile[r * DIM + swizzle(r, c) * 8]);
        }
#pragma unroll
        for (unsigned int j = 0; j < NS; j += 2) {
            unsigned int r = j * 8 + lane / 16 * 8 + lane % 8;
            unsigned int c = kk * 2 + (lane / 8) % 2;
            unsigned int got[4];
            ldmatrix_x4(got, &k_tile[r * DIM + swizzle(r, c) * 8]);
#pragma unroll
            for (unsigned int i = 0; i < MT; i++) {
                mma_16x8x16(s[i][j], qf[i], got[0], got[1]);
                mma_16x8x16(s[i][j + 1], qf[i], got[2], got[3]);
            }
        }
    }
}

// Given: o += p v. The accumulators of two neighbouring 8-key tiles of s are
// exactly the A fragment of one 16-key step (rows l / 4 and l / 4 + 8,
// columns 2 (l % 4) and 2 (l % 4) + 8), so p goes from registers to the
// tensor cores without touching shared memory. v is stored key-major, as
// Puzzle 35's b is, and read with .trans.
__device__ __forceinline__ void accumulate(float (&o)[MT][ND][4], const float (&p)[MT][NS][4],
                                           const bf16* v_tile, unsigned int lane) {
#pragma unroll
    for (unsigned int kk = 0; kk < KS; kk++) {
        unsigned int pa[MT][4];
#pragma unroll
        for (unsigned int i = 0; i < MT; i++) {
            pa[i][0] = pack_bf16(p[i][2 * kk][0], p[i][2 * kk][1]);
            pa[i][1] = pack_bf16(p[i][2 * kk][2], p[i][2 * kk][3]);
            pa[i][2] = pack_bf16(p[i][2 * kk + 1][0], p[i][2 * kk + 1][1]);
            pa[i][3] = pack_bf16(p[i][2 * kk + 1][2], p[i][2 * kk + 1][3]);
        }
#pragma unroll
        for (unsigned int d = 0; d < ND; d += 2) {
            unsigned int r = kk * 16 + lane % 8 + (lane / 8) % 2 * 8;
            unsigned int c = d + lane / 16;
            unsigned int got[4];
            ldmatrix_x4_trans(got, &v_tile[r * DIM + swizzle(r, c) * 8]);
#pragma unroll
            for (unsigned int i = 0; i < MT; i++) {
                mma_16x8x16(o[i][d], pa[i], got[0], got[1]);
                mma_16x8x16(o[i][d + 1], pa[i], got[2], got[3]);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    attention_bf16(bf16* out, const bf16* q, const bf16* k, const bf16* v, unsigned int seq) {
    extern __shared__ __align__(128) unsigned char shared[];
    bf16* q_tile = reinterpret_cast<bf16*>(shared);
    bf16* k_tiles = q_tile + BR * DIM;
    bf16* v_tiles = k_tiles + 2 * BC * DIM;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    size_t head = static_cast<size_t>(blockIdx.y) * seq * DIM;
    unsigned int row0 = blockIdx.x * BR;
    // Scores in base 2, as in Puzzle 31: exp2f is the exponential the
    // hardware has, and log2(e) / sqrt(DIM) folds into one multiplication.
    const float scale = 1.44269504088896341f * rsqrtf(static_cast<float>(DIM));

    load_rows_async(q_tile, q + head + static_cast<size_t>(row0) * DIM, BR);
    load_rows_async(k_tiles, k + head, BC);
    load_rows_async(v_tiles, v + head, BC);
    commit_copies();

    float o[MT][ND][4] = {};
    // In each m16 tile i, lane l holds two rows: l / 4 (h = 0) and l / 4 + 8
    // (h = 1), each shared with the three other lanes of its quad.
    float row_max[MT][2], row_sum[MT][2];
#pragma unroll
    for (unsigned int i = 0; i < MT; i++) {
        row_max[i][0] = row_max[i][1] = minus_infinity();
        row_sum[i][0] = row_sum[i][1] = 0.0f;
    }
    unsigned int tiles = seq / BC;
    for (unsigned int t = 0; t < tiles; t++) {
        // Tile t + 1 into the other stage, which every warp finished reading
        // at the barrier that ended step t - 1.
        if (t + 1 < tiles) {
            unsigned int next = (t + 1) % 2;
            size_t from = head + static_cast<size_t>(t + 1) * BC * DIM;
            load_rows_async(k_tiles + next * BC * DIM, k + from, BC);
            load_rows_async(v_tiles + next * BC * DIM, v + from, BC);
        }
        commit_copies();
        wait_copies<1>();
        __syncthreads();
        const bf16* k_tile = k_tiles + (t % 2) * BC * DIM;
        const bf16* v_tile = v_tiles + (t % 2) * BC * DIM;
        float s[MT][NS][4] = {};
        scores(s, q_tile, k_tile, warp, lane);
        // BEGIN PUZZLE (roughly 24 lines)
        // The online softmax of the warp's rows over this tile, on the
        // accumulators: s[i][j][2h] and s[i][j][2h + 1] are this lane's two
        // scores of row h of m-tile i in key tile j.
#pragma unroll
        for (unsigned int i = 0; i < MT; i++) {
#pragma unroll
            for (unsigned int h = 0; h < 2; h++) {
                float tile_max = minus_infinity();
#pragma unroll
                for (unsigned int j = 0; j < NS; j++) {
                    tile_max = fmaxf(tile_max, fmaxf(s[i][j][2 * h], s[i][j][2 * h + 1]));
                }
                // The row's other scores are in the quad's other three lanes.
                tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffff, tile_max, 1));
                tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffff, tile_max, 2));
                float new_max = fmaxf(row_max[i][h], tile_max * scale);
                float factor = exp2f(row_max[i][h] - new_max);
                float tile_sum = 0.0f;
#pragma unroll
                for (unsigned int j = 0; j < NS; j++) {
                    s[i][j][2 * h] = exp2f(fmaf(s[i][j][2 * h], scale, -new_max));
                    s[i][j][2 * h + 1] = exp2f(fmaf(s[i][j][2 * h + 1], scale, -new_max));
                    tile_sum += s[i][j][2 * h] + s[i][j][2 * h + 1];
                }
                // This lane's share of the row's sum: the quad adds its four at the end.
                row_sum[i][h] = row_sum[i][h] * factor + tile_sum;
                row_max[i][h] = new_max;
#pragma unroll
                for (unsigned int d = 0; d < ND; d++) {
                    o[i][d][2 * h] *= factor;
                    o[i][d][2 * h + 1] *= factor;
                }
            }
        }
        // END PUZZLE
        accumulate(o, s, v_tile, lane);
        // Every warp is done with this stage before step t + 1 refills it.
        __syncthreads();
    }

    // Each row's sum is spread over its quad; then lane l stores columns
    // 2 (l % 4) and the next of each 8-column tile, for both its rows.
#pragma unroll
    for (unsigned int i = 0; i < MT; i++) {
#pragma unroll
        for (unsigned int h = 0; h < 2; h++) {
            row_sum[i][h] += __shfl_xor_sync(0xffffffff, row_sum[i][h], 1);
            row_sum[i][h] += __shfl_xor_sync(0xffffffff, row_sum[i][h], 2);
        }
        unsigned int row = row0 + warp * WR + i * 16 + lane / 4;
#pragma unroll
        for (unsigned int d = 0; d < ND; d++) {
            unsigned int col = d * 8 + lane % 4 * 2;
            bf16* at = out + head + static_cast<size_t>(row) * DIM + col;
            *reinterpret_cast<__nv_bfloat162*>(at) =
                __floats2bfloat162_rn(o[i][d][0] / row_sum[i][0], o[i][d][1] / row_sum[i][0]);
            *reinterpret_cast<__nv_bfloat162*>(at + 8 * DIM) =
                __floats2bfloat162_rn(o[i][d][2] / row_sum[i][1], o[i][d][3] / row_sum[i][1]);
        }
    }
}
