// Puzzle 35, step 3: step 2's fragments, fed by a pipeline. cp.async copies
// global memory straight into shared memory without passing through
// registers, and without making the thread wait; STAGES pairs of tiles are in
// flight at once, so the copy of tile t + STAGES - 1 overlaps the tensor
// cores' work on tile t. out = a · b, row-major SIZE x SIZE, SIZE a multiple
// of the tiles. The tiles live in dynamic shared memory (STAGES of them are
// more than the 48 KiB a static array may take).
#include <cuda_bf16.h>

#define BM 64
#define BN 64
#define BK 64
#define STAGES 3
#define WM 32
#define WN 32
#define WARP 32
#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * WARP)
// A warp's part of the tile is MT x NT instructions' worth of 16 x 8 outputs.
#define MT (WM / 16)
#define NT (WN / 8)
// Tiles move in chunks of 8 values, 16 bytes: one ldmatrix row, one copy.
#define A_CHUNKS (BK / 8)
#define B_CHUNKS (BN / 8)
static_assert(BM % WM == 0 && BN % WN == 0, "warp parts fill the block tile");
static_assert(WM % 16 == 0 && WN % 16 == 0, "whole m16 tiles and pairs of n8 tiles");
static_assert(A_CHUNKS % 8 == 0 && B_CHUNKS % 8 == 0, "the swizzle permutes 8 chunks");

typedef __nv_bfloat16 bf16;

#include "../hopper/mma.cuh"
#include "../hopper/async_copy.cuh"

// Given: the copies of both tiles at k0, swizzled as in step 2, issued but not awaited.
__device__ __forceinline__ void load_tiles_async(bf16* a_tile, bf16* b_tile, const bf16* a,
                                                 const bf16* b, unsigned int size,
                                                 unsigned int row0, unsigned int col0,
                                                 unsigned int k0) {
    for (unsigned int i = threadIdx.x; i < BM * A_CHUNKS; i += THREADS) {
        unsigned int r = i / A_CHUNKS, c = i % A_CHUNKS;
        copy_async_16(&a_tile[r * BK + swizzle(r, c) * 8], &a[(row0 + r) * size + k0 + c * 8]);
    }
    for (unsigned int i = threadIdx.x; i < BK * B_CHUNKS; i += THREADS) {
        unsigned int r = i / B_CHUNKS, c = i % B_CHUNKS;
        copy_async_16(&b_tile[r * BN + swizzle(r, c) * 8], &b[(k0 + r) * size + col0 + c * 8]);
    }
}

// The multiply-adds over one pair of tiles, for one warp's part.
__device__ __forceinline__ void compute_tile(float (&acc)[MT][NT][4], const bf16* a_tile,
                                             const bf16* b_tile, unsigned int warp_row,
                                             unsigned int warp_col, unsigned int lane) {
#pragma unroll
    for (unsigned int kk = 0; kk < BK; kk += 16) {
        unsigned int fa[MT][4];
        unsigned int fb[NT][2];
        // a: matrices 0 to 3 are rows 0-7 and 8-15 at k 0-7, then at k 8-15,
        // which is the order mma.sync takes a's four registers in.
#pragma unroll
        for (unsigned int i = 0; i < MT; i++) {
            unsigned int r = warp_row + i * 16 + lane % 16;
            unsigned int c = kk / 8 + lane / 16;
            ldmatrix_x4(fa[i], &a_tile[r * BK + swizzle(r, c) * 8]);
        }
        // b is stored k-major; transposed, matrices 0 and 1 are k 0-7 and
        // 8-15 of one n8 tile, 2 and 3 the same of the next.
#pragma unroll
        for (unsigned int j = 0; j < NT; j += 2) {
            unsigned int r = kk + lane % 8 + (lane / 8) % 2 * 8;
            unsigned int c = (warp_col + j * 8) / 8 + lane / 16;
            unsigned int got[4];
            ldmatrix_x4_trans(got, &b_tile[r * BN + swizzle(r, c) * 8]);
            fb[j][0] = got[0];
            fb[j][1] = got[1];
            fb[j + 1][0] = got[2];
            fb[j + 1][1] = got[3];
        }
#pragma unroll
        for (unsigned int i = 0; i < MT; i++) {
#pragma unroll
            for (unsigned int j = 0; j < NT; j++) {
                mma_16x8x16(acc[i][j], fa[i], fb[j][0], fb[j][1]);
            }
        }
    }
}

extern "C" __global__ void __launch_bounds__(THREADS)
    gemm_async(bf16* out, const bf16* a, const bf16* b, unsigned int size) {
    extern __shared__ __align__(128) unsigned char shared[];
    bf16* a_tiles = reinterpret_cast<bf16*>(shared);
    bf16* b_tiles = a_tiles + STAGES * BM * BK;
    unsigned int row0 = blockIdx.y * BM;
    unsigned int col0 = blockIdx.x * BN;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp_row = warp / (BN / WN) * WM;
    unsigned int warp_col = warp % (BN / WN) * WN;
    float acc[MT][NT][4] = {};
    unsigned int tiles = size / BK;
    // BEGIN PUZZLE (roughly 16 lines)
    // Fill all stages but one. Every step commits one group, even an empty
    // one, so "all but STAGES - 2 groups done" always means "tile t is here".
    for (unsigned int s = 0; s + 1 < STAGES; s++) {
        if (s < tiles) {
            load_tiles_async(a_tiles + s * BM * BK, b_tiles + s * BK * BN, a, b, size, row0,
                             col0, s * BK);
        }
        commit_copies();
    }
    for (unsigned int t = 0; t < tiles; t++) {
        wait_copies<STAGES - 2>();
        // Tile t is in for every thread's copies, and every warp is done
        // with tile t - 1, whose stage the next copy refills.
        __syncthreads();
        unsigned int next = t + STAGES - 1;
        if (next < tiles) {
            unsigned int s = next % STAGES;
            load_tiles_async(a_tiles + s * BM * BK, b_tiles + s * BK * BN, a, b, size, row0,
                             col0, next * BK);
        }
        commit_copies();
        unsigned int s = t % STAGES;
        compute_tile(acc, a_tiles + s * BM * BK, b_tiles + s * BK * BN, warp_row, warp_col, lane);
    }
    // END PUZZLE
    // Lane l holds rows l / 4 and l / 4 + 8 of each 16 x 8 tile, at columns
    // 2 (l % 4) and the next: one BF16 pair, 4 bytes, per row.
#pragma unroll
    for (unsigned int i = 0; i < MT; i++) {
#pragma unroll
        for (unsigned int j = 0; j < NT; j++) {
            unsigned int row = row0 + warp_row + i * 16 + lane / 4;
            unsigned int col = col0 + warp_col + j * 8 + lane % 4 * 2;
            *reinterpret_cast<__nv_bfloat162*>(&out[row * size + col]) =
                __floats2bfloat162_rn(acc[i][j][0], acc[i][j][1]);
            *reinterpret_cast<__nv_bfloat162*>(&out[(row + 8) * size + col]) =
                __floats2bfloat162_rn(acc[i][j][2], acc[i][j][3]);
        }
    }
}
