// Experiment (sgemm_jit.py): Puzzle 19's 8 x 16 outputs a thread with no
// transposed tile at all, so that both tiles can travel by cp.async,
// 16 bytes a copy, straight from global to shared memory, and no registers
// stage them. A thread reads a's tile along k instead: one 128-bit load
// gives one row's four k, so eight loads give four k of all eight rows,
// 2 loads a k as before, held in 32 registers.
// Sizes must be multiples of the block tiles here (no guards).
//   STAGES   tiles in the ring (STAGES - 1 in flight while one is used)
//   GROUP    blocks walk GROUP rows of tiles at a time (1: row by row)
//   SWIZZLE  1: a's rows keep their four 16-byte chunks in an order XORed
//            with (row / 2) % 4, so that the four rows a warp reads at once
//            fall in four different sets of banks
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
#ifndef STAGES
#define STAGES 3
#endif
#ifndef GROUP
#define GROUP 8
#endif
#ifndef SWIZZLE
#define SWIZZLE 1
#endif
#ifndef MINB
#define MINB 2
#endif
#define THREADS ((BM / TM) * (BN / TN))
#define WARP 32
#define LANE_ROWS 4
#define LANE_COLS 8
#define WMITER (TM / 4)
#define WNITER (TN / 4)
#define SUB_M (LANE_ROWS * 4)
#define SUB_N (LANE_COLS * 4)
#define WM (SUB_M * WMITER)
#define WN (SUB_N * WNITER)
#define CHUNKS (BK / 4)
static_assert(BK == 16, "four 16-byte chunks a row of a's tile");
static_assert(BM % WM == 0 && BN % WN == 0, "warp tiles fill the block tile");
static_assert((BM * BK / 4) % THREADS == 0 && (BK * BN / 4) % THREADS == 0, "whole copy passes");
#define A_COPIES (BM * BK / 4 / THREADS)
#define B_COPIES (BK * BN / 4 / THREADS)

__device__ __forceinline__ unsigned int chunk_at(unsigned int row, unsigned int chunk) {
    return SWIZZLE ? chunk ^ ((row >> 1) & 3) : chunk;
}

__device__ __forceinline__ void copy16(void* dst, const void* src) {
    unsigned int s = static_cast<unsigned int>(__cvta_generic_to_shared(dst));
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(src) : "memory");
}

__device__ __forceinline__ float part(float4 v, unsigned int x) {
    return x == 0 ? v.x : x == 1 ? v.y : x == 2 ? v.z : v.w;
}

extern "C" __global__ void __launch_bounds__(THREADS, MINB)
    sgemm_async(float* out, const float* a, const float* b, unsigned int size) {
    __shared__ __align__(16) float4 a_s[STAGES][BM][CHUNKS];
    __shared__ __align__(16) float4 b_s[STAGES][BK][BN / 4];
    unsigned int row0, col0;
#if GROUP > 1
    unsigned int launched = blockIdx.y * gridDim.x + blockIdx.x;
    unsigned int first = launched / (GROUP * gridDim.x) * GROUP;
    unsigned int rows = min(static_cast<unsigned int>(GROUP), gridDim.y - first);
    unsigned int within = launched - first * gridDim.x;
    row0 = (first + within % rows) * BM;
    col0 = within / rows * BN;
#else
    row0 = blockIdx.y * BM;
    col0 = blockIdx.x * BN;
#endif
    unsigned int tid = threadIdx.x;
    unsigned int warp = tid / WARP, lane = tid % WARP;
    // Rows: the warp's, then sub-tile wm, then i * 4 + this lane's row, so
    // that the lanes of a warp read four neighbouring rows at once.
    unsigned int wr = warp / (BN / WN) * WM + lane / LANE_COLS;
    unsigned int tc = warp % (BN / WN) * WN + lane % LANE_COLS * 4;
    float acc[TM][TN] = {};
    unsigned int tiles = size / BK;

    auto copy = [&](unsigned int stage, unsigned int k0) {
#pragma unroll
        for (unsigned int l = 0; l < A_COPIES; l++) {
            unsigned int i = tid + l * THREADS;
            unsigned int r = i / CHUNKS, c = i % CHUNKS;
            copy16(&a_s[stage][r][chunk_at(r, c)], &a[(row0 + r) * size + k0 + c * 4]);
        }
#pragma unroll
        for (unsigned int l = 0; l < B_COPIES; l++) {
            unsigned int i = tid + l * THREADS;
            unsigned int r = i / (BN / 4), c = i % (BN / 4);
            copy16(&b_s[stage][r][c], &b[(k0 + r) * size + col0 + c * 4]);
        }
    };

#pragma unroll
    for (unsigned int s = 0; s < STAGES - 1; s++) {
        if (s < tiles) copy(s, s * BK);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
    }
    for (unsigned int t = 0; t < tiles; t++) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2) : "memory");
        __syncthreads();
        unsigned int next = t + STAGES - 1;
        if (next < tiles) copy(next % STAGES, next * BK);
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        unsigned int st = t % STAGES;
#pragma unroll
        for (unsigned int kc = 0; kc < CHUNKS; kc++) {
            float4 af[TM];
#pragma unroll
            for (unsigned int m = 0; m < TM; m++) {
                unsigned int r = wr + m / 4 * SUB_M + m % 4 * LANE_ROWS;
                af[m] = a_s[st][r][chunk_at(r, kc)];
            }
#pragma unroll
            for (unsigned int kk = 0; kk < 4; kk++) {
                float bf[TN];
#pragma unroll
                for (unsigned int wn = 0; wn < WNITER; wn++) {
                    float4 v = b_s[st][kc * 4 + kk][(tc + wn * SUB_N) / 4];
                    bf[wn * 4 + 0] = v.x;
                    bf[wn * 4 + 1] = v.y;
                    bf[wn * 4 + 2] = v.z;
                    bf[wn * 4 + 3] = v.w;
                }
#pragma unroll
                for (unsigned int m = 0; m < TM; m++) {
                    float av = part(af[m], kk);
#pragma unroll
                    for (unsigned int j = 0; j < TN; j++) acc[m][j] += av * bf[j];
                }
            }
        }
    }
#pragma unroll
    for (unsigned int m = 0; m < TM; m++) {
        unsigned int row = row0 + wr + m / 4 * SUB_M + m % 4 * LANE_ROWS;
#pragma unroll
        for (unsigned int j = 0; j < TN; j += 4) {
            unsigned int col = col0 + tc + j / 4 * SUB_N;
            *reinterpret_cast<float4*>(&out[row * size + col]) =
                make_float4(acc[m][j], acc[m][j + 1], acc[m][j + 2], acc[m][j + 3]);
        }
    }
}
