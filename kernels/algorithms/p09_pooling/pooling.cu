// Puzzle 9: Pooling. Each output is the sum of its own input and the two before it.
#define TPB 8
// A window of 3 is the element itself plus the HALO elements just before it.
#define HALO 2

extern "C" __global__ void pooling(float* out, const float* a, unsigned int size) {
    // The block's TPB elements, preceded by the HALO elements that come just
    // before the block: the windows of its first threads reach back into them.
    __shared__ float staged[HALO + TPB];

    unsigned int block_start = blockIdx.x * blockDim.x;
    unsigned int global_i = block_start + threadIdx.x;
    unsigned int local_i = threadIdx.x;
    // BEGIN PUZZLE (roughly 12 lines)
    // Each thread stages its own element, shifted right past the halo.
    if (global_i < size) {
        staged[HALO + local_i] = a[global_i];
    }
    // The first HALO threads also stage the halo. Before the start of the
    // array there is nothing to add, which is the same as adding zeros.
    if (local_i < HALO) {
        staged[local_i] = (block_start + local_i >= HALO) ? a[block_start + local_i - HALO] : 0.0f;
    }
    // Every slot must be written before any thread reads its neighbours'.
    __syncthreads();

    // Slots local_i .. local_i + 2 hold a[global_i - 2] .. a[global_i].
    if (global_i < size) {
        out[global_i] = staged[local_i] + staged[local_i + 1] + staged[local_i + 2];
    }
    // END PUZZLE
}
