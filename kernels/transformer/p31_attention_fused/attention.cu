// Puzzle 31, step 2: attention fused, FlashAttention's scheme in FP32 on the
// CUDA cores. A block owns BR query rows of one head and walks the keys BC at
// a time. For each tile of keys it computes the BR x BC scores in shared
// memory, updates each row's running maximum and sum (the online softmax of
// Puzzle 28), rescales its output rows by how far the maximum moved, and adds
// the tile's probabilities times the tile of v. The SEQ x SEQ matrix never
// exists: a tile of it lives in shared memory, then is gone.
//
// Each thread computes a 4 x 4 block of scores (rows ty*4.., keys tx*4..) and
// a 4 x (4 * DIM / BC) block of the output (rows ty*4.., columns tx*4 + g*BC).
// SEQ must be a multiple of BR and of BC, and DIM a multiple of BC.
#define DIM 8
#define BR 8
#define BC 8
#define THREADS ((BR / 4) * (BC / 4))
#define GROUPS (DIM / BC)
// log2(e): scores are kept in base-2 units so that exp becomes exp2f.
#define LOG2E 1.4426950408889634f
#define LOWEST (-3.402823466e38f)

extern "C" __global__ void __launch_bounds__(THREADS)
attention(float* out, const float* q, const float* k, const float* v, unsigned int seq) {
    // Dynamic shared memory: q's tile transposed (qt[d][r]), one tile of k
    // transposed (kt[d][c]) and then of v (vs[c][d]) in the same place, and
    // the scores, then probabilities, transposed (pt[c][r]).
    extern __shared__ float4 shared4[];
    float* qt = reinterpret_cast<float*>(shared4);
    float* kv = qt + DIM * BR;
    float* pt = kv + DIM * BC;
    // Each row's running maximum (base 2) and sum, and the factor its output
    // is multiplied by after the latest tile.
    __shared__ float row_max[BR], row_sum[BR], rescale[BR];

    unsigned int t = threadIdx.x;
    unsigned int ty = t / (BC / 4), tx = t % (BC / 4);
    size_t head = (size_t)blockIdx.y * seq * DIM;
    unsigned int row0 = blockIdx.x * BR;

    // q's tile. Consecutive threads take consecutive rows, so the transposed
    // stores fall in different banks.
    for (unsigned int e = t; e < BR * DIM / 4; e += THREADS) {
        unsigned int r = e % BR, d = e / BR * 4;
        float4 x = *reinterpret_cast<const float4*>(q + head + (size_t)(row0 + r) * DIM + d);
        qt[(d + 0) * BR + r] = x.x;
        qt[(d + 1) * BR + r] = x.y;
        qt[(d + 2) * BR + r] = x.z;
        qt[(d + 3) * BR + r] = x.w;
    }

    float acc[4][4 * GROUPS];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
#pragma unroll
        for (int c = 0; c < 4 * GROUPS; ++c) {
            acc[i][c] = 0.0f;
        }
    }
    for (unsigned int r = t; r < BR; r += THREADS) {
        row_max[r] = LOWEST;
        row_sum[r] = 0.0f;
    }

    for (unsigned int key0 = 0; key0 < seq; key0 += BC) {
        // k's tile, transposed.
        for (unsigned int e = t; e < BC * DIM / 4; e += THREADS) {
            unsigned int c = e % BC, d = e / BC * 4;
            float4 x = *reinterpret_cast<const float4*>(k + head + (size_t)(key0 + c) * DIM + d);
            kv[(d + 0) * BC + c] = x.x;
            kv[(d + 1) * BC + c] = x.y;
            kv[(d + 2) * BC + c] = x.z;
            kv[(d + 3) * BC + c] = x.w;
        }
        __syncthreads();

        // The 4 x 4 scores of this thread, kept transposed in pt.
        float s[4][4] = {};
        for (unsigned int d = 0; d < DIM; ++d) {
            float4 a = *reinterpret_cast<const float4*>(&qt[d * BR + ty * 4]);
            float4 b = *reinterpret_cast<const float4*>(&kv[d * BC + tx * 4]);
            float ar[4] = {a.x, a.y, a.z, a.w}, br[4] = {b.x, b.y, b.z, b.w};
#pragma unroll
            for (int i = 0; i < 4; ++i) {
#pragma unroll
                for (int j = 0; j < 4; ++j) {
                    s[i][j] += ar[i] * br[j];
                }
            }
        }
        // Scaled once, by 1 / sqrt(DIM) and by log2(e) for exp2f: the dot
        // products of quarters are exact, so this is each score's only rounding.
        const float scale = LOG2E * rsqrtf((float)DIM);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            *reinterpret_cast<float4*>(&pt[(tx * 4 + j) * BR + ty * 4]) =
                make_float4(s[0][j] * scale, s[1][j] * scale, s[2][j] * scale, s[3][j] * scale);
        }
        __syncthreads();

        // The online softmax of row r over this tile, a row a thread.
        for (unsigned int r = t; r < BR; r += THREADS) {
            // BEGIN PUZZLE (roughly 14 lines)
            float tile_max = LOWEST;
            for (unsigned int c = 0; c < BC; ++c) {
                tile_max = fmaxf(tile_max, pt[c * BR + r]);
            }
            float new_max = fmaxf(row_max[r], tile_max);
            float shrink = exp2f(row_max[r] - new_max);
            float tile_sum = 0.0f;
            for (unsigned int c = 0; c < BC; ++c) {
                float p = exp2f(pt[c * BR + r] - new_max);
                pt[c * BR + r] = p;
                tile_sum += p;
            }
            row_sum[r] = row_sum[r] * shrink + tile_sum;
            row_max[r] = new_max;
            rescale[r] = shrink;
            // END PUZZLE
        }
        // Meanwhile everyone loads v's tile where k's was: the scores are done.
        for (unsigned int e = t; e < BC * DIM / 4; e += THREADS) {
            reinterpret_cast<float4*>(kv)[e] =
                *reinterpret_cast<const float4*>(v + head + (size_t)key0 * DIM + e * 4);
        }
        __syncthreads();

        // The output rows, rescaled to the new maximum, plus P times v.
#pragma unroll
        for (int i = 0; i < 4; ++i) {
            float f = rescale[ty * 4 + i];
#pragma unroll
            for (int c = 0; c < 4 * GROUPS; ++c) {
                acc[i][c] *= f;
            }
        }
        for (unsigned int c = 0; c < BC; ++c) {
            float4 p = *reinterpret_cast<const float4*>(&pt[c * BR + ty * 4]);
            float pr[4] = {p.x, p.y, p.z, p.w};
#pragma unroll
            for (int g = 0; g < GROUPS; ++g) {
                float4 x = *reinterpret_cast<const float4*>(&kv[c * DIM + g * BC + tx * 4]);
#pragma unroll
                for (int i = 0; i < 4; ++i) {
                    acc[i][g * 4 + 0] += pr[i] * x.x;
                    acc[i][g * 4 + 1] += pr[i] * x.y;
                    acc[i][g * 4 + 2] += pr[i] * x.z;
                    acc[i][g * 4 + 3] += pr[i] * x.w;
                }
            }
        }
        __syncthreads();
    }

#pragma unroll
    for (int i = 0; i < 4; ++i) {
        unsigned int r = ty * 4 + i;
        float inv = 1.0f / row_sum[r];
        float* o = out + head + (size_t)(row0 + r) * DIM;
#pragma unroll
        for (int g = 0; g < GROUPS; ++g) {
            *reinterpret_cast<float4*>(o + g * BC + tx * 4) =
                make_float4(acc[i][g * 4] * inv, acc[i][g * 4 + 1] * inv,
                            acc[i][g * 4 + 2] * inv, acc[i][g * 4 + 3] * inv);
        }
    }
}
