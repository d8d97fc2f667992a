// Puzzle 15: transpose through shared memory. The block reads a 32 x 32 tile of
// `a` row by row, and writes it to `out` row by row too: the turn happens in
// shared memory, where reading a column is allowed (but see the padded version).
#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_tiled(float* out, const float* a, unsigned int rows,
                                           unsigned int cols) {
    __shared__ float tile[TILE][TILE];
    unsigned int tx = threadIdx.x;
    unsigned int ty = threadIdx.y;
    // BEGIN PUZZLE (roughly 18 lines)
    // Load: the tile at (blockIdx.y, blockIdx.x) of a, one row per warp.
    unsigned int col = blockIdx.x * TILE + tx;
    unsigned int row = blockIdx.y * TILE + ty;
    for (unsigned int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (row + j < rows && col < cols) {
            tile[ty + j][tx] = a[(row + j) * cols + col];
        }
    }
    __syncthreads();
    // Store: that tile lands at (blockIdx.x, blockIdx.y) of out. A warp writes a
    // row of out, which is a column of the tile.
    unsigned int out_col = blockIdx.y * TILE + tx;
    unsigned int out_row = blockIdx.x * TILE + ty;
    for (unsigned int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (out_row + j < cols && out_col < rows) {
            out[(out_row + j) * rows + out_col] = tile[tx][ty + j];
        }
    }
    // END PUZZLE
}
