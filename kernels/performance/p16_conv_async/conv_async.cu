// Puzzle 16, part 2: part 1 with the tile copied asynchronously: the copy
// engine of each multiprocessor moves the tile into shared memory while the
// threads go on (to fetch the weights), and they wait for it only when they
// need it.
#include <cuda/pipeline>

#define TILE 256
#define TAPS 5
#define HALO (TAPS / 2)

extern "C" __global__ void conv_async(float* out, const float* a, const float* w,
                                      unsigned int size) {
    __shared__ float tile[TILE + 2 * HALO];
    __shared__ float taps[TAPS];
    unsigned int t = threadIdx.x;
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    int start = (int)(block * TILE);
    // Each thread tracks its own copies (thread scope): cp.async on sm_80 and later.
    cuda::pipeline<cuda::thread_scope_thread> pipe = cuda::make_pipeline();

    // BEGIN PUZZLE (roughly 24 lines)
    pipe.producer_acquire();
    for (int s = t; s < TILE + 2 * HALO; s += TILE) {
        int j = start - HALO + s;
        if (j >= 0 && j < (int)size) {
            // Global to shared without passing through a register.
            cuda::memcpy_async(&tile[s], &a[j], cuda::aligned_size_t<alignof(float)>(sizeof(float)), pipe);
        } else {
            tile[s] = 0.0f;
        }
    }
    pipe.producer_commit();
    // Meanwhile, the five weights come the ordinary way.
    if (t < TAPS) {
        taps[t] = w[t];
    }
    // This thread's copies have landed; the barrier makes everyone's visible.
    pipe.consumer_wait();
    __syncthreads();
    int i = start + (int)t;
    if (i < (int)size) {
        float acc = 0.0f;
        for (int k = 0; k < TAPS; k++) {
            acc += tile[t + k] * taps[k];
        }
        out[i] = acc;
    }
    pipe.consumer_release();
    // END PUZZLE
}
