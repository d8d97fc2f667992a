// Puzzle 19, step 2: register tiling. A block owns a BM x BN tile of out and
// walks the k dimension BK columns of a (rows of b) at a time. Each of its
// (BM / TM) x (BN / TN) threads computes a TM x TN patch of the tile in
// registers: per k it reads TM values of a and TN values of b from shared
// memory and does TM * TN multiply-adds with them (an outer product).
#define BM 8
#define BN 8
#define BK 4
#define TM 2
#define TN 2
#define THREADS ((BM / TM) * (BN / TN))

// At most THREADS threads per block, and two blocks on a multiprocessor: the
// compiler keeps each thread under 128 registers so that both fit.
extern "C" __global__ void __launch_bounds__(THREADS, 2)
    sgemm_regtile(float* out, const float* a, const float* b, unsigned int size) {
    __shared__ float a_tile[BM][BK];
    __shared__ float b_tile[BK][BN];
    unsigned int tid = threadIdx.y * blockDim.x + threadIdx.x;
    // The block tile's corner in out, and this thread's patch within the tile.
    unsigned int row0 = blockIdx.y * BM;
    unsigned int col0 = blockIdx.x * BN;
    unsigned int tr = threadIdx.y * TM;
    unsigned int tc = threadIdx.x * TN;
    // TM * TN sums, TM values of a and TN of b: all in registers, since every
    // index below is a compile-time constant once the loops are unrolled.
    float acc[TM][TN] = {};
    float a_reg[TM];
    float b_reg[TN];
    for (unsigned int k0 = 0; k0 < size; k0 += BK) {
        // The block copies both tiles, THREADS elements per pass, zeros past the edges.
        for (unsigned int i = tid; i < BM * BK; i += THREADS) {
            unsigned int r = i / BK;
            unsigned int c = i % BK;
            a_tile[r][c] = (row0 + r < size && k0 + c < size) ? a[(row0 + r) * size + k0 + c] : 0.0f;
        }
        for (unsigned int i = tid; i < BK * BN; i += THREADS) {
            unsigned int r = i / BN;
            unsigned int c = i % BN;
            b_tile[r][c] = (k0 + r < size && col0 + c < size) ? b[(k0 + r) * size + col0 + c] : 0.0f;
        }
        __syncthreads();
        // BEGIN PUZZLE (roughly 18 lines)
#pragma unroll
        for (unsigned int k = 0; k < BK; k++) {
            // TM + TN shared-memory reads per k...
#pragma unroll
            for (unsigned int i = 0; i < TM; i++) {
                a_reg[i] = a_tile[tr + i][k];
            }
#pragma unroll
            for (unsigned int j = 0; j < TN; j++) {
                b_reg[j] = b_tile[k][tc + j];
            }
            // ...feed TM * TN multiply-adds.
#pragma unroll
            for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
                for (unsigned int j = 0; j < TN; j++) {
                    acc[i][j] += a_reg[i] * b_reg[j];
                }
            }
        }
        // END PUZZLE
        __syncthreads();
    }
#pragma unroll
    for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < TN; j++) {
            unsigned int row = row0 + tr + i;
            unsigned int col = col0 + tc + j;
            if (row < size && col < size) {
                out[row * size + col] = acc[i][j];
            }
        }
    }
}
