// Puzzle 32, step 1: an embedding lookup, a token a thread. Thread t copies
// row ids[t] of the table, DIM floats, to row t of the output. Correct, and
// the way a loop on a CPU would do it; on a GPU the 32 threads of a warp each
// walk their own row, so every load of the warp touches 32 rows at once.
// Threads, so tokens, per block.
#define BLOCK_TOKENS 8
#define DIM 8

extern "C" __global__ void embed_rows(float* out, const float* table, const unsigned int* ids,
                                      unsigned int tokens) {
    unsigned int t = blockIdx.x * BLOCK_TOKENS + threadIdx.x;
    // BEGIN PUZZLE (roughly 7 lines)
    if (t < tokens) {
        const float* row = table + (size_t)ids[t] * DIM;
        float* dst = out + (size_t)t * DIM;
        for (unsigned int d = 0; d < DIM; ++d) {
            dst[d] = row[d];
        }
    }
    // END PUZZLE
}
