// Puzzle 29, step 4: RMSNorm of each row, one block per row, the row read
// once into registers (VECS float4s a thread, as in step 1). No mean, no
// Welford: each thread adds up the squares of its values, the block adds the
// threads' sums (given), and every thread writes x / sqrt(mean square + EPS)
// * gamma.
#define TPB 32
#define VECS 1
#define WARP 32
#define FULL_MASK 0xffffffffu
#define EPS 1e-5f

// The block's total, returned to every thread: a butterfly in each warp, one
// slot per warp, then every thread adds the slots in the same order.
__device__ float block_sum(float s, float* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        s += __shfl_xor_sync(FULL_MASK, s, offset);
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = s;
    }
    __syncthreads();
    float all = 0.0f;
    for (unsigned int w = 0; w < TPB / WARP; ++w) {
        all += slots[w];
    }
    __syncthreads();
    return all;
}

extern "C" __global__ void rmsnorm(float* out, const float* a, const float* gamma,
                                   unsigned int cols) {
    __shared__ float slots[TPB / WARP];
    const float4* x = reinterpret_cast<const float4*>(a + (size_t)blockIdx.x * cols);
    float4* y = reinterpret_cast<float4*>(out + (size_t)blockIdx.x * cols);
    const float4* g = reinterpret_cast<const float4*>(gamma);
    unsigned int quads = cols / 4;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 20 lines)
    float4 v[VECS];
    float squares = 0.0f;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            v[k] = x[q];
            squares += (v[k].x * v[k].x + v[k].y * v[k].y) + (v[k].z * v[k].z + v[k].w * v[k].w);
        }
    }
    float scale = rsqrtf(block_sum(squares, slots) / cols + EPS);
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            float4 gq = g[q];
            y[q] = make_float4(v[k].x * scale * gq.x, v[k].y * scale * gq.y,
                               v[k].z * scale * gq.z, v[k].w * scale * gq.w);
        }
    }
    // END PUZZLE
}
