// Puzzle 35, step 1: the tensor cores through WMMA. BF16 inputs, FP32
// accumulators, a BF16 result: out = a · b, all three row-major SIZE x SIZE.
// A block owns a BM x BN tile of out and walks k BK at a time; each warp owns
// a WM x WN part of it as FM x FN fragments of 16 x 16 accumulators, which
// live in registers in a layout only the hardware knows. SIZE must be a
// multiple of BM, BN and BK (the benchmark's sizes are).
#include <cuda_bf16.h>
#include <mma.h>
using namespace nvcuda;

#define BM 64
#define BN 64
#define BK 32
#define WM 32
#define WN 32
#define WARP 32
#define WARPS ((BM / WM) * (BN / WN))
#define THREADS (WARPS * WARP)
// Fragments down and across a warp's part of the tile.
#define FM (WM / 16)
#define FN (WN / 16)
// Each shared row is padded by 8 values (16 bytes): rows then start 4 banks
// apart instead of all in bank 0, and the leading dimension stays a multiple
// of 8, as wmma::load_matrix_sync asks of 16-bit types.
#define A_LD (BK + 8)
#define B_LD (BN + 8)
static_assert(BM % WM == 0 && BN % WN == 0, "warp parts fill the block tile");
static_assert(WM % 16 == 0 && WN % 16 == 0 && BK % 16 == 0, "whole fragments");
static_assert(BK % 8 == 0 && BN % 8 == 0, "16-byte copies");

typedef __nv_bfloat16 bf16;

extern "C" __global__ void __launch_bounds__(THREADS)
    gemm_wmma(bf16* out, const bf16* a, const bf16* b, unsigned int size) {
    // 32-byte alignment: load_matrix_sync needs it of every fragment's start.
    __shared__ __align__(32) bf16 a_tile[BM][A_LD];
    __shared__ __align__(32) bf16 b_tile[BK][B_LD];
    // Where each warp's accumulators pass through on their way out.
    __shared__ __align__(32) float stage[WARPS][16][16];
    unsigned int row0 = blockIdx.y * BM;
    unsigned int col0 = blockIdx.x * BN;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp_row = warp / (BN / WN) * WM;
    unsigned int warp_col = warp % (BN / WN) * WN;

    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc[FM][FN];
#pragma unroll
    for (unsigned int i = 0; i < FM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < FN; j++) {
            wmma::fill_fragment(acc[i][j], 0.0f);
        }
    }
    for (unsigned int k0 = 0; k0 < size; k0 += BK) {
        // Given: both tiles into shared memory, 8 values (16 bytes) a copy.
        for (unsigned int i = threadIdx.x; i < BM * BK / 8; i += THREADS) {
            unsigned int r = i / (BK / 8), c = i % (BK / 8) * 8;
            *reinterpret_cast<uint4*>(&a_tile[r][c]) =
                *reinterpret_cast<const uint4*>(&a[(row0 + r) * size + k0 + c]);
        }
        for (unsigned int i = threadIdx.x; i < BK * BN / 8; i += THREADS) {
            unsigned int r = i / (BN / 8), c = i % (BN / 8) * 8;
            *reinterpret_cast<uint4*>(&b_tile[r][c]) =
                *reinterpret_cast<const uint4*>(&b[(k0 + r) * size + col0 + c]);
        }
        __syncthreads();
        // BEGIN PUZZLE (roughly 19 lines)
        for (unsigned int kk = 0; kk < BK; kk += 16) {
            wmma::fragment<wmma::matrix_a, 16, 16, 16, bf16, wmma::row_major> fa[FM];
            wmma::fragment<wmma::matrix_b, 16, 16, 16, bf16, wmma::row_major> fb[FN];
#pragma unroll
            for (unsigned int i = 0; i < FM; i++) {
                wmma::load_matrix_sync(fa[i], &a_tile[warp_row + i * 16][kk], A_LD);
            }
#pragma unroll
            for (unsigned int j = 0; j < FN; j++) {
                wmma::load_matrix_sync(fb[j], &b_tile[kk][warp_col + j * 16], B_LD);
            }
#pragma unroll
            for (unsigned int i = 0; i < FM; i++) {
#pragma unroll
                for (unsigned int j = 0; j < FN; j++) {
                    wmma::mma_sync(acc[i][j], fa[i], fb[j], acc[i][j]);
                }
            }
        }
        // END PUZZLE
        __syncthreads();
    }
    // Given: each fragment goes out through the warp's staging tile, where
    // its layout is plain row-major again; a lane rounds 8 of its values to
    // BF16 and stores them as one 16-byte write.
#pragma unroll
    for (unsigned int i = 0; i < FM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < FN; j++) {
            wmma::store_matrix_sync(&stage[warp][0][0], acc[i][j], 16, wmma::mem_row_major);
            __syncwarp();
            unsigned int r = lane / 2, c = lane % 2 * 8;
            __align__(16) bf16 packed[8];
#pragma unroll
            for (unsigned int e = 0; e < 8; e++) {
                packed[e] = __float2bfloat16_rn(stage[warp][r][c + e]);
            }
            unsigned int row = row0 + warp_row + i * 16 + r;
            unsigned int col = col0 + warp_col + j * 16 + c;
            *reinterpret_cast<uint4*>(&out[row * size + col]) =
                *reinterpret_cast<const uint4*>(packed);
            __syncwarp();
        }
    }
}
