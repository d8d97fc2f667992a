// Puzzle 15: the shared-memory transpose with one unused column in the tile.
// A row of the tile is then 33 words long, so the 32 words of a tile column lie
// in 32 different banks, and a warp reads a column in one pass instead of 32.
#define TILE 32
#define BLOCK_ROWS 8

extern "C" __global__ void transpose_padded(float* out, const float* a, unsigned int rows,
                                            unsigned int cols) {
    unsigned int tx = threadIdx.x;
    unsigned int ty = threadIdx.y;
    // BEGIN PUZZLE (roughly 17 lines)
    // Word (r, c) is at r * 33 + c: bank (r + c) % 32, different for each r.
    __shared__ float tile[TILE][TILE + 1];
    unsigned int col = blockIdx.x * TILE + tx;
    unsigned int row = blockIdx.y * TILE + ty;
    for (unsigned int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (row + j < rows && col < cols) {
            tile[ty + j][tx] = a[(row + j) * cols + col];
        }
    }
    __syncthreads();
    unsigned int out_col = blockIdx.y * TILE + tx;
    unsigned int out_row = blockIdx.x * TILE + ty;
    for (unsigned int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (out_row + j < cols && out_col < rows) {
            out[(out_row + j) * rows + out_col] = tile[tx][ty + j];
        }
    }
    // END PUZZLE
}
