// Puzzle 19, step 5: warp tiling. Step 4 with a different map from threads
// to outputs. A warp's 32 lanes form a LANE_ROWS x LANE_COLS grid of 4 x 4
// patches, a sub-tile; the warp repeats that sub-tile WMITER times down and
// WNITER times across, which makes its warp tile WM x WN, and the warps tile
// the BM x BN block tile. A thread still owns TM x TN outputs, but as
// WMITER x WNITER patches a sub-tile apart, and in every shared-memory read
// the lanes of a warp ask for neighbouring float4s: no bank conflicts, and
// fewer distinct words per warp than in step 4.
// Sizes must be multiples of 4 (float4 views of the matrices); TM and TN too.
#define BM 16
#define BN 32
#define BK 4
#define TM 4
#define TN 4
#define THREADS ((BM / TM) * (BN / TN))
#define WARP 32
// 8 lanes side by side read 8 neighbouring float4s of b, 128 bytes: one pass
// of shared memory's 32 banks. The 4 rows of lanes read 64 bytes of a.
#define LANE_ROWS 4
#define LANE_COLS 8
// A thread's TM x TN outputs are WMITER x WNITER patches of 4 x 4...
#define WMITER (TM / 4)
#define WNITER (TN / 4)
// ...spaced one sub-tile apart, in a warp tile of WM x WN.
#define SUB_M (LANE_ROWS * 4)
#define SUB_N (LANE_COLS * 4)
#define WM (SUB_M * WMITER)
#define WN (SUB_N * WNITER)
static_assert(LANE_ROWS * LANE_COLS == WARP, "one patch per lane");
static_assert(TM % 4 == 0 && TN % 4 == 0, "patches of 4 x 4");
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles fill the block tile");
// float4s of each tile that one thread carries (rounded up; the last pass may be partial).
#define A_LOADS ((BM * BK / 4 + THREADS - 1) / THREADS)
#define B_LOADS ((BK * BN / 4 + THREADS - 1) / THREADS)

// Where one block's tiles come from, and where this thread's first patch sits.
struct Place {
    unsigned int size, row0, col0, tr, tc, tid;
};

// Given: step 4's copy of the tiles at k0, global memory to registers...
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

// ...and registers to a pair of shared tiles, a transposed.
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

// Given: the multiply-adds over one pair of tiles. Output row i of the
// thread is tile row tr + (i / 4) * SUB_M + i % 4; columns likewise.
__device__ __forceinline__ void compute_tile(const float (*a_tile)[BM], const float (*b_tile)[BN],
                                             float (&acc)[TM][TN], Place p) {
    float a_reg[TM];
    float b_reg[TN];
#pragma unroll
    for (unsigned int k = 0; k < BK; k++) {
        // One float4 per patch, a sub-tile apart.
#pragma unroll
        for (unsigned int wm = 0; wm < WMITER; wm++) {
            float4 v = *reinterpret_cast<const float4*>(&a_tile[k][p.tr + wm * SUB_M]);
            a_reg[wm * 4 + 0] = v.x;
            a_reg[wm * 4 + 1] = v.y;
            a_reg[wm * 4 + 2] = v.z;
            a_reg[wm * 4 + 3] = v.w;
        }
#pragma unroll
        for (unsigned int wn = 0; wn < WNITER; wn++) {
            float4 v = *reinterpret_cast<const float4*>(&b_tile[k][p.tc + wn * SUB_N]);
            b_reg[wn * 4 + 0] = v.x;
            b_reg[wn * 4 + 1] = v.y;
            b_reg[wn * 4 + 2] = v.z;
            b_reg[wn * 4 + 3] = v.w;
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
    sgemm_warptile(float* out, const float* a, const float* b, unsigned int size) {
    __shared__ __align__(16) float a_tiles[2][BK][BM];
    __shared__ __align__(16) float b_tiles[2][BK][BN];
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    Place p;
    p.size = size;
    p.row0 = blockIdx.y * BM;
    p.col0 = blockIdx.x * BN;
    p.tid = threadIdx.x;
    p.tr = 0;
    p.tc = 0;
    // BEGIN PUZZLE (roughly 8 lines)
    // Warps take warp tiles row by row, BN / WN of them per row.
    unsigned int warp = p.tid / WARP;
    unsigned int lane = p.tid % WARP;
    unsigned int warp_row = warp / (BN / WN);
    unsigned int warp_col = warp % (BN / WN);
    // Lanes take patches of the sub-tile the same way, LANE_COLS per row.
    unsigned int lane_row = lane / LANE_COLS;
    unsigned int lane_col = lane % LANE_COLS;
    p.tr = warp_row * WM + lane_row * 4;
    p.tc = warp_col * WN + lane_col * 4;
    // END PUZZLE
    float acc[TM][TN] = {};
    float4 a_regs[A_LOADS];
    float4 b_regs[B_LOADS];
    unsigned int tiles = (size + BK - 1) / BK;

    // Step 4's pipeline.
    load_tiles(a_regs, b_regs, a4, b4, p, 0);
    store_tiles(a_tiles[0], b_tiles[0], a_regs, b_regs, p);
    __syncthreads();
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int now = t % 2;
        bool more = t + 1 < tiles;
        if (more) {
            load_tiles(a_regs, b_regs, a4, b4, p, (t + 1) * BK);
        }
        compute_tile(a_tiles[now], b_tiles[now], acc, p);
        if (more) {
            store_tiles(a_tiles[1 - now], b_tiles[1 - now], a_regs, b_regs, p);
        }
        __syncthreads();
    }
    // Each row of each patch goes out as one float4 store.
#pragma unroll
    for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < TN; j += 4) {
            unsigned int row = p.row0 + p.tr + i / 4 * SUB_M + i % 4;
            unsigned int col = p.col0 + p.tc + j / 4 * SUB_N;
            if (row < size && col < size) {
                out4[(row * size + col) / 4] =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            }
        }
    }
}
