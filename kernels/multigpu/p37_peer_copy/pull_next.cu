// Puzzle 37: every GPU copies its neighbour's buffer. Rank r reads rank
// (r + 1) % ranks's `a` straight out of that GPU's memory, over NVLink, and
// writes its own `out`: a ring of pulls, one per GPU, all at once.
#include "../peers.cuh"

extern "C" __global__ void pull_next(float* out, Peers<const float> a, unsigned int rank,
                                     unsigned int ranks, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN PUZZLE (roughly 4 lines)
    const float* next = a.rank[(rank + 1) % ranks];
    if (i < size) {
        out[i] = next[i];
    }
    // END PUZZLE
}
