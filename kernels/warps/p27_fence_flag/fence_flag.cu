// Puzzle 27: a sum in one launch. Each block stores its partial sum and
// counts itself done on a counter; the block that counts last adds up the
// partial sums. The counter is a flag for data in other words of memory, so
// its update must publish them (release) and its reader must see them (acquire).
#include <cuda/atomic>

#define TPB 128
#define WARP 32
#define FULL_MASK 0xffffffffu

using Counter = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>;

// Launch 1, given: the counter starts at 0 on every run.
extern "C" __global__ void reset(unsigned int* done) {
    *done = 0;
}

// Puzzle 21's block sum: the result is valid in thread 0.
__device__ float block_sum(float v) {
    __shared__ float warp_sums[TPB / WARP];
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    if (lane == 0) {
        warp_sums[warp] = v;
    }
    __syncthreads();
    if (warp == 0) {
        v = (lane < TPB / WARP) ? warp_sums[lane] : 0.0f;
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            v += __shfl_down_sync(FULL_MASK, v, offset);
        }
    }
    // The slots may be reused by a second call.
    __syncthreads();
    return v;
}

extern "C" __global__ void sum_last_block(float* out, const float* a, float* partials,
                                          unsigned int* done, unsigned int size) {
    __shared__ bool last;
    unsigned int i = blockIdx.x * TPB + threadIdx.x;
    float total = block_sum((i < size) ? a[i] : 0.0f);

    // BEGIN PUZZLE (roughly 16 lines)
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = total;
        // acq_rel: as a release, the store above is visible to whoever later
        // acquires this counter; as an acquire, this block sees the partial
        // sums of every block that counted before it.
        unsigned int before = Counter(*done).fetch_add(1u, cuda::memory_order_acq_rel);
        last = (before == gridDim.x - 1);
    }
    __syncthreads();
    if (last) {
        // Thread 0's acquire, then the barrier: every thread of this block
        // now sees every partial sum.
        float v = 0.0f;
        for (unsigned int j = threadIdx.x; j < gridDim.x; j += TPB) {
            v += partials[j];
        }
        v = block_sum(v);
        if (threadIdx.x == 0) {
            out[0] = v;
        }
    }
    // END PUZZLE
}
