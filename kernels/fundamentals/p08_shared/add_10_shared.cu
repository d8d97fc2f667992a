// Puzzle 8: Shared Memory. Each block stages its slice of a in fast block-local memory.
#define TPB 4

extern "C" __global__ void add_10_shared(float* out, const float* a, unsigned int size) {
    // One slot per thread of the block; the size must be known at compile time.
    __shared__ float tile[TPB];

    unsigned int global_i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int local_i = threadIdx.x;

    // BEGIN PUZZLE (roughly 6 lines)
    // Every thread copies its own element from global into shared memory...
    if (global_i < size) {
        tile[local_i] = a[global_i];
    }
    // ...and waits here until the whole block has done the same.
    __syncthreads();

    if (global_i < size) {
        out[global_i] = tile[local_i] + 10.0f;
    }
    // END PUZZLE
}
