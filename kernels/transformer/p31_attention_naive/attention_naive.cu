// Puzzle 31, step 1: attention in three kernels, the way the formula reads.
// `scores` writes S = q kᵀ / √DIM for every head, the whole SEQ x SEQ matrix,
// to global memory; `softmax_rows` turns each row of S into probabilities in
// place; `weighted_sum` multiplies them by v. Both products are tiled through
// shared memory as in Puzzle 19's step 1.
#define TILE 4
#define DIM 8
#define TPB 32
#define LOWEST (-3.402823466e38f)

// S[h][i][j] = (q[h][i] . k[h][j]) / sqrt(DIM): block (x, y, h) computes a
// TILE x TILE tile of head h's scores, rows y, columns (keys) x.
extern "C" __global__ void scores(float* s, const float* q, const float* k, unsigned int seq) {
    __shared__ float qs[TILE][TILE + 1];
    __shared__ float ks[TILE][TILE + 1];
    size_t head = (size_t)blockIdx.z * seq * DIM;
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    unsigned int i = blockIdx.y * TILE + ty;
    // BEGIN PUZZLE (roughly 12 lines)
    unsigned int j_row = blockIdx.x * TILE + ty;  // the key this thread loads
    float acc = 0.0f;
    for (unsigned int d0 = 0; d0 < DIM; d0 += TILE) {
        qs[ty][tx] = q[head + (size_t)i * DIM + d0 + tx];
        ks[ty][tx] = k[head + (size_t)j_row * DIM + d0 + tx];
        __syncthreads();
        for (unsigned int d = 0; d < TILE; ++d) {
            acc += qs[ty][d] * ks[tx][d];
        }
        __syncthreads();
    }
    unsigned int j = blockIdx.x * TILE + tx;
    s[(size_t)blockIdx.z * seq * seq + (size_t)i * seq + j] = acc * rsqrtf((float)DIM);
    // END PUZZLE
}

// The block's maximum or sum of one value a thread, in shared memory.
__device__ float block_reduce(float v, float* slots, bool take_max) {
    slots[threadIdx.x] = v;
    __syncthreads();
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            float other = slots[threadIdx.x + half];
            slots[threadIdx.x] = take_max ? fmaxf(slots[threadIdx.x], other)
                                          : slots[threadIdx.x] + other;
        }
        __syncthreads();
    }
    float all = slots[0];
    __syncthreads();
    return all;
}

// Each row of S, in place: exp(s - max) / sum, one block a row (Puzzle 28's
// three passes); block (i, h) takes row i of head h.
extern "C" __global__ void softmax_rows(float* s, unsigned int seq) {
    __shared__ float slots[TPB];
    float* row = s + ((size_t)blockIdx.y * seq + blockIdx.x) * seq;
    float m = LOWEST;
    for (unsigned int j = threadIdx.x; j < seq; j += TPB) {
        m = fmaxf(m, row[j]);
    }
    m = block_reduce(m, slots, true);
    float total = 0.0f;
    for (unsigned int j = threadIdx.x; j < seq; j += TPB) {
        total += expf(row[j] - m);
    }
    total = block_reduce(total, slots, false);
    for (unsigned int j = threadIdx.x; j < seq; j += TPB) {
        row[j] = expf(row[j] - m) / total;
    }
}

// out[h][i][d] = sum_j P[h][i][j] v[h][j][d]: block (x, y, h) computes a
// TILE x TILE tile of head h's output, rows y, columns x.
extern "C" __global__ void weighted_sum(float* out, const float* p, const float* v,
                                        unsigned int seq) {
    __shared__ float ps[TILE][TILE + 1];
    __shared__ float vs[TILE][TILE + 1];
    const float* probs = p + (size_t)blockIdx.z * seq * seq;
    size_t head = (size_t)blockIdx.z * seq * DIM;
    unsigned int tx = threadIdx.x, ty = threadIdx.y;
    unsigned int i = blockIdx.y * TILE + ty, d = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    for (unsigned int j0 = 0; j0 < seq; j0 += TILE) {
        ps[ty][tx] = probs[(size_t)i * seq + j0 + tx];
        vs[ty][tx] = v[head + (size_t)(j0 + ty) * DIM + d];
        __syncthreads();
        for (unsigned int j = 0; j < TILE; ++j) {
            acc += ps[ty][j] * vs[j][tx];
        }
        __syncthreads();
    }
    out[head + (size_t)i * DIM + d] = acc;
}
