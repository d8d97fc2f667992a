// Puzzle 35, step 2: the tensor cores by hand. mma.sync m16n8k16 (BF16 in,
// FP32 accumulate) on fragments that ldmatrix reads from shared memory laid
// out with an XOR swizzle, so that no read or write of a tile has a bank
// conflict. out = a · b, row-major SIZE x SIZE, SIZE a multiple of the tiles.
#include <cuda_bf16.h>

#define BM 64
#define BN 64
#define BK 64
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

// Given: the copy of both tiles at k0, swizzled, 16 bytes a copy.
__device__ __forceinline__ void load_tiles(bf16* a_tile, bf16* b_tile, const bf16* a,
                                           const bf16* b, unsigned int size, unsigned int row0,
                                           unsigned int col0, unsigned int k0) {
    for (unsigned int i = threadIdx.x; i < BM * A_CHUNKS; i += THREADS) {
        unsigned int r = i / A_CHUNKS, c = i % A_CHUNKS;
        *reinterpret_cast<uint4*>(&a_tile[r * BK + swizzle(r, c) * 8]) =
            *reinterpret_cast<const uint4*>(&a[(row0 + r) * size + k0 + c * 8]);
    }
    for (unsigned int i = threadIdx.x; i < BK * B_CHUNKS; i += THREADS) {
        unsigned int r = i / B_CHUNKS, c = i % B_CHUNKS;
        *reinterpret_cast<uint4*>(&b_tile[r * BN + swizzle(r, c) * 8]) =
            *reinterpret_cast<const uint4*>(&b[(k0 + r) * size + col0 + c * 8]);
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
        // BEGIN PUZZLE (roughly 14 lines)
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
        // END PUZZLE
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
    gemm_mma(bf16* out, const bf16* a, const bf16* b, unsigned int size) {
    __shared__ __align__(128) bf16 a_tile[BM * BK];
    __shared__ __align__(128) bf16 b_tile[BK * BN];
    unsigned int row0 = blockIdx.y * BM;
    unsigned int col0 = blockIdx.x * BN;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp_row = warp / (BN / WN) * WM;
    unsigned int warp_col = warp % (BN / WN) * WN;
    float acc[MT][NT][4] = {};
    for (unsigned int k0 = 0; k0 < size; k0 += BK) {
        load_tiles(a_tile, b_tile, a, b, size, row0, col0, k0);
        __syncthreads();
        compute_tile(acc, a_tile, b_tile, warp_row, warp_col, lane);
        __syncthreads();
    }
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
