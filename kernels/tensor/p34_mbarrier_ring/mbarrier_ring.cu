// Puzzle 34, step 1: a producer warp and a consumer warp pass tiles through
// a ring of STAGES shared-memory buffers, with mbarriers instead of
// __syncthreads. Buffer s has two barriers: `full[s]` completes a phase when
// the producer has filled it, `empty[s]` when the consumer has used it. Each
// block handles TILES tiles of TILE floats; out = a + 10.
#define TILE 32
#define TILES 8
#define STAGES 2
#define WARP 32
static_assert(TILE % WARP == 0, "a warp moves whole rows of 32 floats");

#include "../hopper/mbarrier.cuh"


extern "C" __global__ void mbarrier_ring(float* out, const float* a) {
    __shared__ float tiles[STAGES][TILE];
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    unsigned int warp = threadIdx.x / WARP;
    unsigned int lane = threadIdx.x % WARP;
    unsigned int first = blockIdx.x * TILES * TILE;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            // Every lane of the warp on the other side arrives once a phase.
            barrier_init(&full[s], WARP);
            barrier_init(&empty[s], WARP);
        }
    }
    // The one block-wide barrier: nobody uses a barrier before it exists.
    __syncthreads();
    // BEGIN PUZZLE (roughly 21 lines)
    if (warp == 0) {
        // The producer. Tile t goes to buffer t % STAGES; its round there is
        // t / STAGES. From the second round on, the consumer must have
        // emptied the buffer: the previous round's phase of `empty`.
        for (unsigned int t = 0; t < TILES; t++) {
            unsigned int s = t % STAGES, round = t / STAGES;
            if (round > 0) {
                barrier_wait(&empty[s], (round - 1) % 2);
            }
            for (unsigned int i = lane; i < TILE; i += WARP) {
                tiles[s][i] = a[first + t * TILE + i];
            }
            barrier_arrive(&full[s]);
        }
    } else if (warp == 1) {
        // The consumer: wait for this round's fill, use it, hand it back.
        for (unsigned int t = 0; t < TILES; t++) {
            unsigned int s = t % STAGES, round = t / STAGES;
            barrier_wait(&full[s], round % 2);
            for (unsigned int i = lane; i < TILE; i += WARP) {
                out[first + t * TILE + i] = tiles[s][i] + 10.0f;
            }
            barrier_arrive(&empty[s]);
        }
    }
    // END PUZZLE
}
