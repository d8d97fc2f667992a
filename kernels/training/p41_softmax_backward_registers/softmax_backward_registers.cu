// Puzzle 41, step 2: the row read once. Each thread keeps its part of y and
// of dy in registers, VECS float4s of each, so the dot product and the
// output are computed from there: memory sees one read of y, one of dy and
// one write of dx. A row holds at most 4 * VECS * TPB floats, a multiple of 4.
#define TPB 32
#define VECS 1
#define WARP 32
#define FULL_MASK 0xffffffffu

// The block's sum of one value per thread, returned to every thread (as in step 1).
__device__ float block_sum(float v, float* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_xor_sync(FULL_MASK, v, offset);
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = v;
    }
    __syncthreads();
    float s = slots[0];
    for (unsigned int w = 1; w < TPB / WARP; ++w) {
        s += slots[w];
    }
    __syncthreads();
    return s;
}

extern "C" __global__ void softmax_backward_registers(float* out, const float* y, const float* dy,
                                                      unsigned int cols) {
    __shared__ float slots[TPB / WARP];
    // A row starts at a multiple of 4 floats, so these loads are 16-byte aligned.
    size_t start = (size_t)blockIdx.x * cols;
    const float4* y4 = reinterpret_cast<const float4*>(y + start);
    const float4* dy4 = reinterpret_cast<const float4*>(dy + start);
    float4* dx4 = reinterpret_cast<float4*>(out + start);
    unsigned int quads = cols / 4;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 20 lines)
    // Quad t + k * TPB of each row, in registers; past the end, zeros, which
    // add nothing to the dot product.
    float4 yv[VECS], dyv[VECS];
    float part = 0.0f;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        float4 zero = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        yv[k] = (q < quads) ? y4[q] : zero;
        dyv[k] = (q < quads) ? dy4[q] : zero;
        part += (yv[k].x * dyv[k].x + yv[k].y * dyv[k].y) + (yv[k].z * dyv[k].z + yv[k].w * dyv[k].w);
    }
    float dot = block_sum(part, slots);
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            dx4[q] = make_float4(yv[k].x * (dyv[k].x - dot), yv[k].y * (dyv[k].y - dot),
                                 yv[k].z * (dyv[k].z - dot), yv[k].w * (dyv[k].w - dot));
        }
    }
    // END PUZZLE
}
