// Puzzle 19, step 4: double buffering. Step 3 waits for each tile to arrive
// before it computes, and computes before it loads the next. Here the shared
// tiles come in pairs: while the block multiplies with one pair, the loads of
// the next tile are already on their way into registers, and land in the
// other pair afterwards. One barrier per tile instead of two. Sizes must be
// multiples of 4 (float4 views of the matrices); TM and TN too.
#define BM 8
#define BN 8
#define BK 4
#define TM 4
#define TN 4
#define THREADS ((BM / TM) * (BN / TN))
// float4s of each tile that one thread carries (rounded up; the last pass may be partial).
#define A_LOADS ((BM * BK / 4 + THREADS - 1) / THREADS)
#define B_LOADS ((BK * BN / 4 + THREADS - 1) / THREADS)

// Where one block's tiles come from, and where this thread's patch sits.
struct Place {
    unsigned int size, row0, col0, tr, tc, tid;
};

// Given: step 3's copy, split in two halves. The first issues this thread's
// global loads of the tiles at k0 into registers...
__device__ __forceinline__ void load_tiles(float4 (&a_regs)[A_LOADS], float4 (&b_regs)[B_LOADS],
                                           const float4* a4, const float4* b4, Place p,
                                           unsigned int k0) {
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BK / 4);
        unsigned int c = i % (BK / 4) * 4;
        a_regs[l] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (i < BM * BK / 4 && p.row0 + r < p.size && k0 + c < p.size) {
            a_regs[l] = a4[((p.row0 + r) * p.size + k0 + c) / 4];
        }
    }
#pragma unroll
    for (unsigned int l = 0; l < B_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BN / 4);
        unsigned int c = i % (BN / 4) * 4;
        b_regs[l] = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        if (i < BK * BN / 4 && k0 + r < p.size && p.col0 + c < p.size) {
            b_regs[l] = b4[((k0 + r) * p.size + p.col0 + c) / 4];
        }
    }
}

// ...and the second stores them into a pair of shared tiles, a transposed.
__device__ __forceinline__ void store_tiles(float (*a_tile)[BM], float (*b_tile)[BN],
                                            const float4 (&a_regs)[A_LOADS],
                                            const float4 (&b_regs)[B_LOADS], Place p) {
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BK / 4);
        unsigned int c = i % (BK / 4) * 4;
        if (i < BM * BK / 4) {
            a_tile[c + 0][r] = a_regs[l].x;
            a_tile[c + 1][r] = a_regs[l].y;
            a_tile[c + 2][r] = a_regs[l].z;
            a_tile[c + 3][r] = a_regs[l].w;
        }
    }
#pragma unroll
    for (unsigned int l = 0; l < B_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        if (i < BK * BN / 4) {
            *reinterpret_cast<float4*>(&b_tile[i / (BN / 4)][i % (BN / 4) * 4]) = b_regs[l];
        }
    }
}

// Given: step 3's multiply-adds over one pair of tiles.
__device__ __forceinline__ void compute_tile(const float (*a_tile)[BM], const float (*b_tile)[BN],
                                             float (&acc)[TM][TN], Place p) {
    float a_reg[TM];
    float b_reg[TN];
#pragma unroll
    for (unsigned int k = 0; k < BK; k++) {
#pragma unroll
        for (unsigned int i = 0; i < TM; i += 4) {
            float4 v = *reinterpret_cast<const float4*>(&a_tile[k][p.tr + i]);
            a_reg[i + 0] = v.x;
            a_reg[i + 1] = v.y;
            a_reg[i + 2] = v.z;
            a_reg[i + 3] = v.w;
        }
#pragma unroll
        for (unsigned int j = 0; j < TN; j += 4) {
            float4 v = *reinterpret_cast<const float4*>(&b_tile[k][p.tc + j]);
            b_reg[j + 0] = v.x;
            b_reg[j + 1] = v.y;
            b_reg[j + 2] = v.z;
            b_reg[j + 3] = v.w;
        }
#pragma unroll
        for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
            for (unsigned int j = 0; j < TN; j++) {
                acc[i][j] += a_reg[i] * b_reg[j];
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    sgemm_double(float* out, const float* a, const float* b, unsigned int size) {
    // Two pairs of tiles: [0] and [1].
    __shared__ __align__(16) float a_tiles[2][BK][BM];
    __shared__ __align__(16) float b_tiles[2][BK][BN];
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    Place p;
    p.size = size;
    p.row0 = blockIdx.y * BM;
    p.col0 = blockIdx.x * BN;
    p.tr = threadIdx.y * TM;
    p.tc = threadIdx.x * TN;
    p.tid = threadIdx.y * blockDim.x + threadIdx.x;
    float acc[TM][TN] = {};
    // The registers that carry the next tile from global to shared memory.
    float4 a_regs[A_LOADS];
    float4 b_regs[B_LOADS];
    unsigned int tiles = (size + BK - 1) / BK;

    // The first tile goes into pair 0 before the loop.
    load_tiles(a_regs, b_regs, a4, b4, p, 0);
    store_tiles(a_tiles[0], b_tiles[0], a_regs, b_regs, p);
    __syncthreads();
    // BEGIN PUZZLE (roughly 12 lines)
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int now = t % 2;
        bool more = t + 1 < tiles;
        // Issue the next tile's loads first; nothing waits for them until the
        // stores below, so they travel while the multiply-adds run.
        if (more) {
            load_tiles(a_regs, b_regs, a4, b4, p, (t + 1) * BK);
        }
        compute_tile(a_tiles[now], b_tiles[now], acc, p);
        // The other pair was last read in pass t - 1, and every thread has
        // passed the barrier at its end since: it is free.
        if (more) {
            store_tiles(a_tiles[1 - now], b_tiles[1 - now], a_regs, b_regs, p);
        }
        // One barrier: the new pair is complete, and the old one no longer read.
        __syncthreads();
    }
    // END PUZZLE
#pragma unroll
    for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < TN; j += 4) {
            unsigned int row = p.row0 + p.tr + i;
            unsigned int col = p.col0 + p.tc + j;
            if (row < size && col < size) {
                out4[(row * size + col) / 4] =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            }
        }
    }
}
