// Puzzle 28, step 4: the row read once. Each thread loads its part of the row
// into registers as float4s, VECS of them, and the maximum, the sum and the
// outputs are computed from there: memory sees one read and one write of
// each element. A row holds at most 4 * VECS * TPB floats, a multiple of 4.
#define TPB 32
#define VECS 1
#define WARP 32
#define FULL_MASK 0xffffffffu
#define LOWEST (-3.402823466e38f)

// The block's maximum and sum of one value per thread, returned to every
// thread (as in step 1).
__device__ float block_max(float v, float* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, offset));
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = v;
    }
    __syncthreads();
    float m = slots[0];
    for (unsigned int w = 1; w < TPB / WARP; ++w) {
        m = fmaxf(m, slots[w]);
    }
    __syncthreads();
    return m;
}

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

// The largest of a float4's four lanes.
__device__ float max4(float4 v) {
    return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
}

extern "C" __global__ void softmax_registers(float* out, const float* a, unsigned int cols) {
    __shared__ float slots[TPB / WARP];
    // A row starts at a multiple of 4 floats, so these loads are 16-byte aligned.
    const float4* x = reinterpret_cast<const float4*>(a + (size_t)blockIdx.x * cols);
    float4* y = reinterpret_cast<float4*>(out + (size_t)blockIdx.x * cols);
    unsigned int quads = cols / 4;
    unsigned int t = threadIdx.x;

    // BEGIN PUZZLE (roughly 24 lines)
    // Quad t + k * TPB of the row, in registers (a constant-size array in an
    // unrolled loop stays in registers). Past the end: LOWEST, whose exp is 0.
    float4 v[VECS];
    float largest = LOWEST;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        v[k] = (q < quads) ? x[q] : make_float4(LOWEST, LOWEST, LOWEST, LOWEST);
        largest = fmaxf(largest, max4(v[k]));
    }
    largest = block_max(largest, slots);
    float sum = 0.0f;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        v[k] = make_float4(expf(v[k].x - largest), expf(v[k].y - largest),
                           expf(v[k].z - largest), expf(v[k].w - largest));
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    float inv = 1.0f / block_sum(sum, slots);
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            y[q] = make_float4(v[k].x * inv, v[k].y * inv, v[k].z * inv, v[k].w * inv);
        }
    }
    // END PUZZLE
}
