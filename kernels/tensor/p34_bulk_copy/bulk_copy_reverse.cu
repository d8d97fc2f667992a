// Puzzle 34, step 2: one thread asks the Tensor Memory Accelerator's bulk
// copy for a whole tile, global to shared memory, and every thread waits for
// its bytes on an mbarrier. No thread moves a float itself. Then the block
// writes its tile back reversed, at the mirror position: out is a backwards.
#define TILE 256
#define TPB 128
static_assert(TILE * 4 % 16 == 0, "bulk copies move multiples of 16 bytes");

#include "../hopper/tma.cuh"


extern "C" __global__ void bulk_copy_reverse(float* out, const float* a, unsigned int size) {
    // Bulk copies write 16-byte aligned shared memory.
    __shared__ __align__(16) float tile[TILE];
    __shared__ __align__(8) unsigned long long landed;
    unsigned int first = blockIdx.x * TILE;
    if (threadIdx.x == 0) {
        // Phase 0 completes after one arrival and the tile's bytes.
        barrier_init(&landed, 1);
    }
    __syncthreads();
    // BEGIN PUZZLE (roughly 5 lines)
    if (threadIdx.x == 0) {
        // The one arrival of phase 0, and the bytes it waits for.
        barrier_arrive_expect(&landed, TILE * sizeof(float));
        bulk_copy(tile, a + first, TILE * sizeof(float), &landed);
    }
    barrier_wait(&landed, 0);
    // END PUZZLE
    for (unsigned int i = threadIdx.x; i < TILE; i += TPB) {
        out[size - 1 - (first + i)] = tile[i];
    }
}
