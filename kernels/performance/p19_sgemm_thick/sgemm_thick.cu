// Puzzle 19, step 8: thicker threads. Step 5's kernel with fewer, busier
// threads: each owns 8 x 16 outputs (TN = 16), so one k step is 128
// multiply-adds for 6 shared-memory reads instead of 64 for 4, and the tiles
// are 16 deep (BK = 16), so the copy and the barrier come half as often. Each
// row of a's transposed tile ends in PAD spare floats, which spread a warp's
// transposing stores over more banks.
//
// At about 250 registers a thread, the guards at the matrix's edges decide
// the speed. With step 5's guards (an `if` around each load and each store),
// ptxas placed the next tile's loads after the multiply-adds instead of
// before them, and every tile waited for its copy. Here nothing is guarded by
// a branch: loads are clamped into the matrix, k past its end reads zeros,
// and each output store is one predicated PTX instruction.
// Sizes must be multiples of 4 (float4 views of the matrices); TM and TN too.
#define BM 32
#define BN 128
#define BK 8
#define TM 8
#define TN 16
// Spare floats after each row of a's transposed tile (a multiple of 4 keeps rows float4-aligned).
#define PAD 4
#define THREADS ((BM / TM) * (BN / TN))
#define WARP 32
// Step 5's warp tiles: 4 x 8 lanes, each a 4 x 4 patch of a sub-tile...
#define LANE_ROWS 4
#define LANE_COLS 8
#define WMITER (TM / 4)
#define WNITER (TN / 4)
// ...repeated WMITER x WNITER times, a sub-tile apart, in a warp tile of WM x WN.
#define SUB_M (LANE_ROWS * 4)
#define SUB_N (LANE_COLS * 4)
#define WM (SUB_M * WMITER)
#define WN (SUB_N * WNITER)
static_assert(LANE_ROWS * LANE_COLS == WARP, "one patch per lane");
static_assert(TM % 4 == 0 && TN % 4 == 0, "patches of 4 x 4");
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles fill the block tile");
// Every thread copies the same number of float4s of each tile, so that no
// copy needs a test of its thread's index.
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copy passes");
#define A_LOADS (BM * BK / 4 / THREADS)
#define B_LOADS (BK * BN / 4 / THREADS)

// Where one block's tiles come from, and where this thread's first patch sits.
struct Place {
    unsigned int size, row0, col0, tr, tc, tid;
};

// The copy of the tiles at k0, global memory to registers, without a branch.
__device__ __forceinline__ void load_tiles(float4 (&a_regs)[A_LOADS], float4 (&b_regs)[B_LOADS],
                                           const float4* a4, const float4* b4, Place p,
                                           unsigned int k0) {
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    // Given, b: its rows are k, its columns are outputs. A column past the
    // last one reads the last one instead; the products it feeds land in
    // outputs that are never stored. A row past the end of k reads the last
    // row and keeps zeros instead, since its products would be added into
    // real outputs.
#pragma unroll
    for (unsigned int l = 0; l < B_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BN / 4);
        unsigned int c = i % (BN / 4) * 4;
        unsigned int k = k0 + r;
        unsigned int col = min(p.col0 + c, p.size - 4);
        float4 v = b4[(min(k, p.size - 1) * p.size + col) / 4];
        b_regs[l] = k < p.size ? v : zero;
    }
    // a the same way: its rows are outputs, its columns are k.
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BK / 4);
        unsigned int c = i % (BK / 4) * 4;
        unsigned int row = min(p.row0 + r, p.size - 1);
        unsigned int k = k0 + c;
        float4 v = a4[(row * p.size + min(k, p.size - 4)) / 4];
        a_regs[l] = k < p.size ? v : zero;
    }
}

// Given: registers to a pair of shared tiles, a transposed (step 5's stores).
__device__ __forceinline__ void store_tiles(float (*a_tile)[BM + PAD], float (*b_tile)[BN],
                                            const float4 (&a_regs)[A_LOADS],
                                            const float4 (&b_regs)[B_LOADS], Place p) {
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BK / 4);
        unsigned int c = i % (BK / 4) * 4;
        a_tile[c + 0][r] = a_regs[l].x;
        a_tile[c + 1][r] = a_regs[l].y;
        a_tile[c + 2][r] = a_regs[l].z;
        a_tile[c + 3][r] = a_regs[l].w;
    }
#pragma unroll
    for (unsigned int l = 0; l < B_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        *reinterpret_cast<float4*>(&b_tile[i / (BN / 4)][i % (BN / 4) * 4]) = b_regs[l];
    }
}

// Given: step 5's multiply-adds over one pair of tiles. Output row i of the
// thread is tile row tr + (i / 4) * SUB_M + i % 4; columns likewise.
__device__ __forceinline__ void compute_tile(const float (*a_tile)[BM + PAD], const float (*b_tile)[BN],
                                             float (&acc)[TM][TN], Place p) {
    float a_reg[TM];
    float b_reg[TN];
    // BEGIN PUZZLE (roughly 26 lines)
#pragma unroll
    for (unsigned int k = 0; k < BK; k++) {
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
    // END PUZZLE
}

// Given: *dst = v where `inside`, as one predicated store (st.global under a
// predicate) rather than an `if` around a store.
__device__ __forceinline__ void store_if(float4* dst, float4 v, bool inside) {
    asm volatile(
        "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %5, 0;\n\t@p st.global.v4.f32 [%0], {%1, %2, %3, %4};\n\t}"
        :
        : "l"(__cvta_generic_to_global(dst)), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w),
          "r"(static_cast<unsigned int>(inside))
        : "memory");
}

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    sgemm_thick(float* out, const float* a, const float* b, unsigned int size) {
    __shared__ __align__(16) float a_tiles[2][BK][BM + PAD];
    __shared__ __align__(16) float b_tiles[2][BK][BN];
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    // Step 5's map: warps take warp tiles row by row, lanes take patches.
    Place p;
    p.size = size;
    p.row0 = blockIdx.y * BM;
    p.col0 = blockIdx.x * BN;
    p.tid = threadIdx.x;
    unsigned int warp = p.tid / WARP;
    unsigned int lane = p.tid % WARP;
    p.tr = warp / (BN / WN) * WM + lane / LANE_COLS * 4;
    p.tc = warp % (BN / WN) * WN + lane % LANE_COLS * 4;
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
    // Each row of each patch goes out as one float4, stored where it lies in the matrix.
#pragma unroll
    for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < TN; j += 4) {
            unsigned int row = p.row0 + p.tr + i / 4 * SUB_M + i % 4;
            unsigned int col = p.col0 + p.tc + j / 4 * SUB_N;
            store_if(&out4[(row * size + col) / 4],
                     make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]),
                     row < size && col < size);
        }
    }
}
