// Puzzle 19, step 1: the square shared-memory tiles of puzzle 14, at full size.
// A TILE x TILE block owns one TILE x TILE tile of out, one element per thread,
// and walks a strip of a and a strip of b through shared memory, one tile of
// each at a time. Tiles that hang over the edge of the matrices hold zeros.
#define TILE 4

extern "C" __global__ void sgemm_shared(float* out, const float* a, const float* b,
                                        unsigned int size) {
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    unsigned int tx = threadIdx.x;
    unsigned int ty = threadIdx.y;
    // The element of out this thread owns (outside the matrix at a ragged edge).
    unsigned int row = blockIdx.y * TILE + ty;
    unsigned int col = blockIdx.x * TILE + tx;
    float acc = 0.0f;
    // BEGIN PUZZLE (roughly 14 lines)
    for (unsigned int k0 = 0; k0 < size; k0 += TILE) {
        // Neighbouring threads (tx) read neighbouring addresses of both inputs.
        a_tile[ty][tx] = (row < size && k0 + tx < size) ? a[row * size + k0 + tx] : 0.0f;
        b_tile[ty][tx] = (k0 + ty < size && col < size) ? b[(k0 + ty) * size + col] : 0.0f;
        __syncthreads();
#pragma unroll
        for (unsigned int k = 0; k < TILE; k++) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        // Nobody may overwrite the tiles while a slower thread still reads them.
        __syncthreads();
    }
    if (row < size && col < size) {
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
