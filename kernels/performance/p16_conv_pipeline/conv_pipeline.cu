// Puzzle 16, part 4: part 3 with two tile buffers. While a block computes
// tile k from one buffer, the copy of its next tile is already on its way
// into the other: the load's latency hides behind the work.
#include <cuda/pipeline>

#define TILE 256
#define TAPS 5
#define HALO (TAPS / 2)
#define STAGES 2

// Starts copying tile k (if there is one) into `slots`, as one stage of `pipe`.
// A tile past the end still commits an empty stage, so that "wait for all but
// the newest stage" always means "wait for the current tile".
__device__ void fetch(cuda::pipeline<cuda::thread_scope_thread>& pipe, float* slots,
                      unsigned int k, unsigned int tiles, const float* a, unsigned int size) {
    pipe.producer_acquire();
    if (k < tiles) {
        int start = (int)(k * TILE);
        for (int s = threadIdx.x; s < TILE + 2 * HALO; s += TILE) {
            int j = start - HALO + s;
            if (j >= 0 && j < (int)size) {
                cuda::memcpy_async(&slots[s], &a[j], cuda::aligned_size_t<alignof(float)>(sizeof(float)), pipe);
            } else {
                slots[s] = 0.0f;
            }
        }
    }
    pipe.producer_commit();
}

extern "C" __global__ void conv_pipeline(float* out, const float* a, const float* w,
                                         unsigned int size) {
    __shared__ float tiles_data[STAGES][TILE + 2 * HALO];
    __shared__ float taps[TAPS];
    unsigned int t = threadIdx.x;
    unsigned int tiles = (size + TILE - 1) / TILE;
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();
    if (t < TAPS) {
        taps[t] = w[t];
    }

    // BEGIN PUZZLE (roughly 22 lines)
    // The first tile starts on its way before the loop.
    fetch(pipe, tiles_data[0], blockIdx.x, tiles, a, size);
    unsigned int n = 0;
    for (unsigned int k = blockIdx.x; k < tiles; k += gridDim.x, n++) {
        float* current = tiles_data[n % STAGES];
        // The next tile goes into the other buffer before this one is used.
        fetch(pipe, tiles_data[(n + 1) % STAGES], k + gridDim.x, tiles, a, size);
        // Wait for every stage but the newest: the current tile has landed.
        cuda::pipeline_consumer_wait_prior<1>(pipe);
        __syncthreads();
        int start = (int)(k * TILE);
        int i = start + (int)t;
        if (i < (int)size) {
            float acc = 0.0f;
            for (int k2 = 0; k2 < TAPS; k2++) {
                acc += current[t + k2] * taps[k2];
            }
            out[i] = acc;
        }
        pipe.consumer_release();
        // Everyone is done with `current` before the next round refills it.
        __syncthreads();
    }
    // END PUZZLE
}
