// Puzzle 15: transpose, naive. A 32 x 8 block covers a 32 x 32 tile of `a`;
// each thread copies four elements of one column of the tile, 8 rows apart.
// Reading a row of `a` is coalesced; writing it as a column of `out` is not.
#define TILE 32
#define BLOCK_ROWS 8

// a is rows x cols, out is cols x rows, both row-major.
extern "C" __global__ void transpose_naive(float* out, const float* a, unsigned int rows,
                                           unsigned int cols) {
    unsigned int col = blockIdx.x * TILE + threadIdx.x;
    unsigned int row = blockIdx.y * TILE + threadIdx.y;
    // BEGIN PUZZLE (roughly 6 lines)
    for (unsigned int j = 0; j < TILE; j += BLOCK_ROWS) {
        if (row + j < rows && col < cols) {
            // Neighbouring threads read neighbours, and write `rows` floats apart.
            out[col * rows + row + j] = a[(row + j) * cols + col];
        }
    }
    // END PUZZLE
}
