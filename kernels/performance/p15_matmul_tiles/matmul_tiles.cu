// Puzzle 15: a tiled matrix product with TILE x TILE tiles (8 at the teaching
// size, 32 in the benchmarks). A TILE x TILE/4 block owns one tile of out; each
// thread computes four of its elements, TILE/4 rows apart. Every block does a
// whole tile's arithmetic, even where the tile hangs over the edge of the matrix.
#define TILE 8
#define PER_THREAD 4
#define BLOCK_ROWS (TILE / PER_THREAD)

extern "C" __global__ void matmul_tiles(float* out, const float* a, const float* b,
                                        unsigned int size) {
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    unsigned int tx = threadIdx.x;
    unsigned int ty = threadIdx.y;
    unsigned int row = blockIdx.y * TILE + ty;  // plus 0, 1, 2, 3 times BLOCK_ROWS
    unsigned int col = blockIdx.x * TILE + tx;
    unsigned int tiles = (size + TILE - 1) / TILE;
    float acc[PER_THREAD] = {0.0f, 0.0f, 0.0f, 0.0f};
    // BEGIN PUZZLE (roughly 21 lines)
    for (unsigned int t = 0; t < tiles; t++) {
        // Each thread loads four elements of each tile; zeros past the edge.
        for (unsigned int r = 0; r < PER_THREAD; r++) {
            unsigned int y = ty + r * BLOCK_ROWS;
            unsigned int a_col = t * TILE + tx;
            unsigned int b_row = t * TILE + y;
            a_tile[y][tx] = (row + r * BLOCK_ROWS < size && a_col < size)
                                ? a[(row + r * BLOCK_ROWS) * size + a_col]
                                : 0.0f;
            b_tile[y][tx] = (b_row < size && col < size) ? b[b_row * size + col] : 0.0f;
        }
        __syncthreads();
        // The full TILE steps, whether or not the tile is full: the zeros add nothing.
        for (unsigned int k = 0; k < TILE; k++) {
            float b_k = b_tile[k][tx];
            for (unsigned int r = 0; r < PER_THREAD; r++) {
                acc[r] += a_tile[ty + r * BLOCK_ROWS][k] * b_k;
            }
        }
        __syncthreads();
    }
    // END PUZZLE
    // Given: each of the thread's four outputs stored where it lies inside
    // the matrix.
    for (unsigned int r = 0; r < PER_THREAD; r++) {
        if (row + r * BLOCK_ROWS < size && col < size) {
            out[(row + r * BLOCK_ROWS) * size + col] = acc[r];
        }
    }
}
