// Puzzle 17, step 4: step 3 with 16-byte loads, four of them in flight per
// thread, so that every warp keeps enough bytes on the way to saturate memory.
#define TPB 256
#define WARP 32

// Four independent float4 loads are issued before any of them is added.
#define UNROLL 4

__device__ float lanes_sum(float4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

extern "C" __global__ void block_sums(float* partials, const float* a, unsigned int size) {
    __shared__ float warp_sums[TPB / WARP];
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;
    unsigned int stride = gridDim.x * TPB;
    // cudaMalloc'd memory is aligned to 256 bytes, so the float4 view is aligned.
    const float4* a4 = reinterpret_cast<const float4*>(a);
    unsigned int quads = size / 4;

    float value = 0.0f;
    // BEGIN PUZZLE (roughly 19 lines)
    float sums[UNROLL] = {0.0f, 0.0f, 0.0f, 0.0f};
    unsigned int i = blockIdx.x * TPB + threadIdx.x;
    // Whole rounds of UNROLL passes: the loads do not depend on each other.
    for (; i + (UNROLL - 1) * stride < quads; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            v[u] = a4[i + u * stride];
        }
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            sums[u] += lanes_sum(v[u]);
        }
    }
    // The passes left over, one at a time.
    for (; i < quads; i += stride) {
        sums[0] += lanes_sum(a4[i]);
    }
    // The last size % 4 elements, which fill no whole float4.
    unsigned int tail = quads * 4 + blockIdx.x * TPB + threadIdx.x;
    if (tail < size) {
        sums[0] += a[tail];
    }
    value = (sums[0] + sums[1]) + (sums[2] + sums[3]);
    // END PUZZLE

    // Given: step 2's warp and block reduction of `value`.
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        value += __shfl_down_sync(0xffffffffu, value, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = value;
    }
    __syncthreads();
    if (warp == 0) {
        value = (lane < TPB / WARP) ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            value += __shfl_down_sync(0xffffffffu, value, offset);
        }
        if (lane == 0) {
            partials[blockIdx.x] = value;
        }
    }
}

// Launch 2, given: one block folds `count` partial sums (step 1's finish).
extern "C" __global__ void finish(float* out, const float* partials, unsigned int count) {
    __shared__ float tile[TPB];
    unsigned int t = threadIdx.x;
    float sum = 0.0f;
    for (unsigned int j = t; j < count; j += TPB) {
        sum += partials[j];
    }
    tile[t] = sum;
    __syncthreads();
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (t < half) {
            tile[t] += tile[t + half];
        }
        __syncthreads();
    }
    if (t == 0) {
        out[0] = tile[0];
    }
}
