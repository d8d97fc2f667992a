// Given: Puzzle 45's shared pieces, which both its steps include: the
// forward pass that saves what the backward pass reads, the tile loads, and
// the two shapes of product the backward pass is made of, on Puzzle 35's
// fragments (mma.cuh, shown there). The including kernel defines DIM, WARP,
// THREADS, CHUNKS, KD and ND.
#include "../../tensor/hopper/mma.cuh"
#include "../../tensor/hopper/async_copy.cuh"

__device__ __forceinline__ float minus_infinity() {
    return __int_as_float(0xff800000);
}

// The sum of v over the warp, in every lane.
__device__ __forceinline__ float warp_sum(float v) {
    for (int offset = 16; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(0xffffffff, v, offset);
    }
    return v;
}

// The eight BF16s of a 16-byte chunk, as floats.
__device__ __forceinline__ void unpack8(float (&to)[8], uint4 chunk) {
    const __nv_bfloat162* pairs = reinterpret_cast<const __nv_bfloat162*>(&chunk);
#pragma unroll
    for (unsigned int p = 0; p < 4; p++) {
        float2 pair = __bfloat1622float2(pairs[p]);
        to[2 * p] = pair.x;
        to[2 * p + 1] = pair.y;
    }
}

// The forward pass, untimed (a setup step), saving what the backward pass
// reads. A thread a query row, with the online softmax of Puzzle 28 in base
// 2 as in Puzzle 36: o, and lse = log2 Σ 2^(s·scale) with s the raw scores,
// so that p = 2^(s·scale − lse). A thread owns its whole row, so no score
// needs a shuffle to sum it: that keeps the pass short enough to check on a
// CPU in a fraction of a second. The threads of a warp read the same key and
// value rows at once, which the GPU serves as one broadcast.
extern "C" __global__ void forward(bf16* o, float* lse, const bf16* q, const bf16* k,
                                   const bf16* v, unsigned int seq) {
    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;
    size_t head = static_cast<size_t>(row / seq) * seq * DIM;
    const float scale = 1.44269504088896341f * rsqrtf(static_cast<float>(DIM));
    float query[DIM], acc[DIM];
    const uint4* q_row = reinterpret_cast<const uint4*>(q + static_cast<size_t>(row) * DIM);
#pragma unroll
    for (unsigned int c = 0; c < CHUNKS; c++) {
        float part[8];
        unpack8(part, q_row[c]);
#pragma unroll
        for (unsigned int e = 0; e < 8; e++) {
            query[c * 8 + e] = part[e];
            acc[c * 8 + e] = 0.0f;
        }
    }
    float max = minus_infinity(), sum = 0.0f;
    for (unsigned int j = 0; j < seq; j++) {
        const uint4* k_row = reinterpret_cast<const uint4*>(k + head + static_cast<size_t>(j) * DIM);
        const uint4* v_row = reinterpret_cast<const uint4*>(v + head + static_cast<size_t>(j) * DIM);
        float score = 0.0f;
#pragma unroll
        for (unsigned int c = 0; c < CHUNKS; c++) {
            float key[8];
            unpack8(key, k_row[c]);
#pragma unroll
            for (unsigned int e = 0; e < 8; e++) {
                score = fmaf(query[c * 8 + e], key[e], score);
            }
        }
        score *= scale;
        // A new maximum: what was gathered so far shrinks by 2^(max − score).
        // With the maximum only growing, most keys skip this.
        if (score > max) {
            float factor = exp2f(max - score);
            sum *= factor;
#pragma unroll
            for (unsigned int c = 0; c < DIM; c++) {
                acc[c] *= factor;
            }
            max = score;
        }
        float weight = exp2f(score - max);
        sum += weight;
#pragma unroll
        for (unsigned int c = 0; c < CHUNKS; c++) {
            float value[8];
            unpack8(value, v_row[c]);
#pragma unroll
            for (unsigned int e = 0; e < 8; e++) {
                acc[c * 8 + e] = fmaf(weight, value[e], acc[c * 8 + e]);
            }
        }
    }
#pragma unroll
    for (unsigned int c = 0; c < DIM; c++) {
        o[static_cast<size_t>(row) * DIM + c] = __float2bfloat16(acc[c] / sum);
    }
    lse[row] = max + log2f(sum);
}

// `rows` consecutive rows of a [SEQ, DIM] matrix into a swizzled tile.
__device__ __forceinline__ void load_rows_async(bf16* tile, const bf16* from, unsigned int rows) {
    for (unsigned int i = threadIdx.x; i < rows * CHUNKS; i += THREADS) {
        unsigned int r = i / CHUNKS, c = i % CHUNKS;
        copy_async_16(&tile[r * DIM + swizzle(r, c) * 8], &from[r * DIM + c * 8]);
    }
}

// `count` floats (a query tile's lse or delta), 16 bytes a copy.
__device__ __forceinline__ void load_floats_async(float* to, const float* from, unsigned int count) {
    for (unsigned int i = threadIdx.x; i < count / 4; i += THREADS) {
        copy_async_16(&to[i * 4], &from[i * 4]);
    }
}

__device__ __forceinline__ unsigned int pack_bf16(float lo, float hi) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned int*>(&pair);
}

// acc = a bᵀ over DIM for the warp's 16 rows of `a` (from a_row) and the
// first 8N rows of `b`: sᵀ = k qᵀ and dpᵀ = v doutᵀ in the key blocks, s =
// q kᵀ and dp = dout vᵀ in step 2's query blocks. As Puzzle 36's scores:
// a's rows as A fragments, b's rows already in the "col" layout of B.
template <unsigned int N>
__device__ __forceinline__ void product_abt(float (&acc)[N][4], const bf16* a, unsigned int a_row,
                                            const bf16* b, unsigned int lane) {
#pragma unroll
    for (unsigned int kk = 0; kk < KD; kk++) {
        unsigned int af[4];
        unsigned int r = a_row + lane % 16;
        ldmatrix_x4(af, &a[r * DIM + swizzle(r, kk * 2 + lane / 16) * 8]);
#pragma unroll
        for (unsigned int n = 0; n < N; n += 2) {
            unsigned int br = n * 8 + lane / 16 * 8 + lane % 8;
            unsigned int got[4];
            ldmatrix_x4(got, &b[br * DIM + swizzle(br, kk * 2 + (lane / 8) % 2) * 8]);
            mma_16x8x16(acc[n], af, got[0], got[1]);
            mma_16x8x16(acc[n + 1], af, got[2], got[3]);
        }
    }
}

// acc += x b for the warp's 16 rows of x (in registers, the accumulators of
// a product above, 8N columns) and the first 8N rows of b: dv += pᵀ dout,
// dk += dsᵀ q, and step 2's dq += ds k. As Puzzle 36's o += p v: two neighbouring 8-query tiles of
// x are the A fragment of one 16-query step; b is read with .trans.
template <unsigned int N>
__device__ __forceinline__ void product_xb(float (&acc)[ND][4], const float (&x)[N][4],
                                           const bf16* b, unsigned int lane) {
#pragma unroll
    for (unsigned int kq = 0; kq < N / 2; kq++) {
        unsigned int xa[4] = {
            pack_bf16(x[2 * kq][0], x[2 * kq][1]), pack_bf16(x[2 * kq][2], x[2 * kq][3]),
            pack_bf16(x[2 * kq + 1][0], x[2 * kq + 1][1]),
            pack_bf16(x[2 * kq + 1][2], x[2 * kq + 1][3])};
#pragma unroll
        for (unsigned int d = 0; d < ND; d += 2) {
            unsigned int r = kq * 16 + lane % 8 + (lane / 8) % 2 * 8;
            unsigned int got[4];
            ldmatrix_x4_trans(got, &b[r * DIM + swizzle(r, d + lane / 16) * 8]);
            mma_16x8x16(acc[d], xa, got[0], got[1]);
            mma_16x8x16(acc[d + 1], xa, got[2], got[3]);
        }
    }
}

// A warp's 16 rows of dk or dv, times `scale`, as BF16.
__device__ __forceinline__ void store_rows(bf16* out, const float (&acc)[ND][4], float scale,
                                           unsigned int lane) {
#pragma unroll
    for (unsigned int d = 0; d < ND; d++) {
        bf16* at = out + static_cast<size_t>(lane / 4) * DIM + d * 8 + lane % 4 * 2;
        *reinterpret_cast<__nv_bfloat162*>(at) =
            __floats2bfloat162_rn(acc[d][0] * scale, acc[d][1] * scale);
        *reinterpret_cast<__nv_bfloat162*>(at + 8 * DIM) =
            __floats2bfloat162_rn(acc[d][2] * scale, acc[d][3] * scale);
    }
}
