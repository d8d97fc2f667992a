// Puzzle 14: tiled matrix multiplication. Each block walks a strip of a and a strip of b one TPB x TPB tile at a time.
#define TPB 3

extern "C" __global__ void matmul_tiled(float* out, const float* a, const float* b, unsigned int size) {
    // One tile of each input at a time, however large the matrices are.
    __shared__ float a_tile[TPB][TPB];
    __shared__ float b_tile[TPB][TPB];

    unsigned int ty = threadIdx.y;
    unsigned int tx = threadIdx.x;
    // The element of out this thread owns (it may lie outside the matrix at the edges).
    unsigned int row = blockIdx.y * TPB + ty;
    unsigned int col = blockIdx.x * TPB + tx;

    // Rounded up: the last tile hangs over the edge when TPB does not divide size.
    unsigned int tiles = (size + TPB - 1) / TPB;
    float acc = 0.0f;
    // BEGIN PUZZLE (roughly 11 lines)
    for (unsigned int t = 0; t < tiles; ++t) {
        // Tile t of the strips: columns t*TPB.. of a's rows, rows t*TPB.. of b's columns.
        unsigned int a_col = t * TPB + tx;
        unsigned int b_row = t * TPB + ty;
        // Past the edge, store zero: a zero term leaves the sum unchanged.
        a_tile[ty][tx] = (row < size && a_col < size) ? a[row * size + a_col] : 0.0f;
        b_tile[ty][tx] = (b_row < size && col < size) ? b[b_row * size + col] : 0.0f;
        // Barrier 1: the tiles are complete before anyone reads them.
        __syncthreads();

        for (unsigned int k = 0; k < TPB; ++k) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        // Barrier 2: everyone is done reading before the next step overwrites the tiles.
        __syncthreads();
    }
    if (row < size && col < size) {
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
