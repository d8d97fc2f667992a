// Experiment (sgemm_jit.py): Puzzle 19 step 8 with knobs, to find what holds
// it below cuBLAS. Every knob at its first value is step 8 at its benchmark
// constants, guards and all, so any size works.
//   WHOLE    1: tiles that lie wholly inside k are copied without clamping
//            k or keeping zeros; only a last, partial tile takes step 8's copy
//   GROUP    blocks walk GROUP rows of tiles at a time, column by column
//            within them (1: row by row, as step 8)
//   KUNROLL  how far the k loop over a tile is unrolled (BK, 16: all of it)
//   ORDER    the order of one k's multiply-adds: 0 row by row (step 8),
//            1 a snake (odd rows right to left, so that consecutive FFMAs
//            share an operand at every turn), 2 column by column,
//            3 column by column as a snake
//   TRANS    1: each thread copies a 4 x 4 block of a (four rows, four k)
//            and transposes it in registers, so that a's tile takes four
//            128-bit shared stores a block instead of sixteen 32-bit ones
//            (needs BK = 16, BM + PAD = 4 mod 8 floats: see a_slot)
//   BM BN BK TM TN PAD  step 8's tiles
#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 128
#endif
#ifndef BK
#define BK 16
#endif
#ifndef TM
#define TM 8
#endif
#ifndef TN
#define TN 16
#endif
#ifndef PAD
#define PAD 4
#endif
#ifndef WHOLE
#define WHOLE 0
#endif
#ifndef GROUP
#define GROUP 1
#endif
#ifndef KUNROLL
#define KUNROLL 16
#endif
#ifndef ORDER
#define ORDER 0
#endif
#ifndef TRANS
#define TRANS 0
#endif
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

// Which row r of a's tile, and which four k from c, a_regs[l] holds.
__device__ __forceinline__ void a_slot(unsigned int l, Place p, unsigned int& r, unsigned int& c) {
#if TRANS
    static_assert(BK == 16 && A_LOADS % 4 == 0 && (BM + PAD) % 8 == 4, "TRANS's layout");
    // A warp copies 8 row groups (of four rows) x 4 groups of k. Thread t
    // stores its block's k row 4kg + x at floats (4kg + x)(BM + PAD) + 4rg,
    // which is the set of four banks (4(kg % 2) + rg) mod 8, plus one that
    // is the same for the whole warp. Row groups are handed out so that the
    // eight threads of each quarter warp (one 128-bit store each at a time)
    // land in eight different sets: no bank conflicts.
    unsigned int block = p.tid + l / 4 * THREADS;
    unsigned int t = block % WARP, w = block / WARP;
    unsigned int kg = t % 4;
    unsigned int rg = 8 * w + t / 4 % 2 + 2 * ((kg / 2) ^ (t / 16)) + 4 * (t / 8 % 2);
    r = 4 * rg + l % 4;
    c = kg * 4;
#else
    unsigned int i = p.tid + l * THREADS;
    r = i / (BK / 4);
    c = i % (BK / 4) * 4;
#endif
}

__device__ __forceinline__ float lane_of(float4 v, unsigned int x) {
    return x == 0 ? v.x : x == 1 ? v.y : x == 2 ? v.z : v.w;
}

// The copy of the tiles at k0, global memory to registers, without a branch.
__device__ __forceinline__ void load_tiles(float4 (&a_regs)[A_LOADS], float4 (&b_regs)[B_LOADS],
                                           const float4* a4, const float4* b4, Place p,
                                           unsigned int k0) {
    const float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    // b: its rows are k, its columns are outputs. A column past the
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
        unsigned int r, c;
        a_slot(l, p, r, c);
        unsigned int row = min(p.row0 + r, p.size - 1);
        unsigned int k = k0 + c;
        float4 v = a4[(row * p.size + min(k, p.size - 4)) / 4];
        a_regs[l] = k < p.size ? v : zero;
    }
}

// The copy of a tile whose k all lie inside the matrix: the same clamps on
// rows and columns (they do not change from tile to tile), none on k.
__device__ __forceinline__ void load_inside(float4 (&a_regs)[A_LOADS], float4 (&b_regs)[B_LOADS],
                                            const float4* a4, const float4* b4, Place p,
                                            unsigned int k0) {
#pragma unroll
    for (unsigned int l = 0; l < B_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        unsigned int r = i / (BN / 4);
        unsigned int c = i % (BN / 4) * 4;
        unsigned int col = min(p.col0 + c, p.size - 4);
        b_regs[l] = b4[((k0 + r) * p.size + col) / 4];
    }
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l++) {
        unsigned int r, c;
        a_slot(l, p, r, c);
        unsigned int row = min(p.row0 + r, p.size - 1);
        a_regs[l] = a4[(row * p.size + k0 + c) / 4];
    }
}

// Registers to a pair of shared tiles, a transposed (step 5's stores).
__device__ __forceinline__ void store_tiles(float (*a_tile)[BM + PAD], float (*b_tile)[BN],
                                            const float4 (&a_regs)[A_LOADS],
                                            const float4 (&b_regs)[B_LOADS], Place p) {
#if TRANS
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l += 4) {
        unsigned int r, c;
        a_slot(l, p, r, c);
#pragma unroll
        for (unsigned int x = 0; x < 4; x++) {
            *reinterpret_cast<float4*>(&a_tile[c + x][r]) =
                make_float4(lane_of(a_regs[l], x), lane_of(a_regs[l + 1], x), lane_of(a_regs[l + 2], x),
                            lane_of(a_regs[l + 3], x));
        }
    }
#else
#pragma unroll
    for (unsigned int l = 0; l < A_LOADS; l++) {
        unsigned int r, c;
        a_slot(l, p, r, c);
        a_tile[c + 0][r] = a_regs[l].x;
        a_tile[c + 1][r] = a_regs[l].y;
        a_tile[c + 2][r] = a_regs[l].z;
        a_tile[c + 3][r] = a_regs[l].w;
    }
#endif
#pragma unroll
    for (unsigned int l = 0; l < B_LOADS; l++) {
        unsigned int i = p.tid + l * THREADS;
        *reinterpret_cast<float4*>(&b_tile[i / (BN / 4)][i % (BN / 4) * 4]) = b_regs[l];
    }
}

// Step 5's multiply-adds over one pair of tiles. Output row i of the
// thread is tile row tr + (i / 4) * SUB_M + i % 4; columns likewise.
__device__ __forceinline__ void compute_tile(const float (*a_tile)[BM + PAD], const float (*b_tile)[BN],
                                             float (&acc)[TM][TN], Place p) {
    float a_reg[TM];
    float b_reg[TN];
#pragma unroll KUNROLL
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
#if ORDER < 2
#pragma unroll
        for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
            for (unsigned int jj = 0; jj < TN; jj++) {
                unsigned int j = ORDER == 1 && i % 2 ? TN - 1 - jj : jj;
                acc[i][j] += a_reg[i] * b_reg[j];
            }
        }
#else
#pragma unroll
        for (unsigned int j = 0; j < TN; j++) {
#pragma unroll
            for (unsigned int ii = 0; ii < TM; ii++) {
                unsigned int i = ORDER == 3 && j % 2 ? TM - 1 - ii : ii;
                acc[i][j] += a_reg[i] * b_reg[j];
            }
        }
#endif
    }
}

// *dst = v where `inside`, as one predicated store (st.global under a
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
#if GROUP > 1
    // Blocks in groups of GROUP block rows, column by column within a group,
    // so that the blocks running at once share rows of a and columns of b in L2.
    unsigned int linear = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int group = linear / (GROUP * gridDim.x);
    unsigned int first = group * GROUP;
    unsigned int rows = min(static_cast<unsigned int>(GROUP), gridDim.y - first);
    unsigned int within = linear - group * GROUP * gridDim.x;
    p.row0 = (first + within % rows) * BM;
    p.col0 = (within / rows) * BN;
#else
    p.row0 = blockIdx.y * BM;
    p.col0 = blockIdx.x * BN;
#endif
    p.tid = threadIdx.x;
    unsigned int warp = p.tid / WARP;
    unsigned int lane = p.tid % WARP;
    p.tr = warp / (BN / WN) * WM + lane / LANE_COLS * 4;
    p.tc = warp % (BN / WN) * WN + lane % LANE_COLS * 4;
    float acc[TM][TN] = {};
    float4 a_regs[A_LOADS];
    float4 b_regs[B_LOADS];
    unsigned int tiles = (size + BK - 1) / BK;
    unsigned int whole = size / BK;

    // Step 4's pipeline; with WHOLE, whole tiles skip the clamps on k.
    load_tiles(a_regs, b_regs, a4, b4, p, 0);
    store_tiles(a_tiles[0], b_tiles[0], a_regs, b_regs, p);
    __syncthreads();
    for (unsigned int t = 0; t < tiles; t++) {
        unsigned int now = t % 2;
        bool more = t + 1 < tiles;
        if (WHOLE && t + 1 < whole) {
            load_inside(a_regs, b_regs, a4, b4, p, (t + 1) * BK);
        } else if (more) {
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
