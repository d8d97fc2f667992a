// Puzzle 19, step 3: step 2 with 16-byte accesses. Both tiles are copied with
// float4 loads, and the a tile is stored transposed, k-major, so that the
// TM values of a a thread needs for one k lie side by side in shared memory,
// like the TN values of b: both are read as float4s. Sizes must be multiples
// of 4 (a row of a float4 view must start on a float4); TM and TN too.
#define BM 8
#define BN 8
#define BK 4
#define TM 4
#define TN 4
#define THREADS ((BM / TM) * (BN / TN))

extern "C" __global__ void __launch_bounds__(THREADS, 2)
    sgemm_vec4(float* out, const float* a, const float* b, unsigned int size) {
    // a_tile[k][m] holds a[row0 + m][k0 + k]: transposed. Aligned for float4 reads.
    __shared__ __align__(16) float a_tile[BK][BM];
    __shared__ __align__(16) float b_tile[BK][BN];
    // cudaMalloc'd memory is aligned to 256 bytes, and size % 4 == 0, so every
    // row of a, b and out starts on a float4.
    const float4* a4 = reinterpret_cast<const float4*>(a);
    const float4* b4 = reinterpret_cast<const float4*>(b);
    float4* out4 = reinterpret_cast<float4*>(out);
    unsigned int tid = threadIdx.y * blockDim.x + threadIdx.x;
    unsigned int row0 = blockIdx.y * BM;
    unsigned int col0 = blockIdx.x * BN;
    unsigned int tr = threadIdx.y * TM;
    unsigned int tc = threadIdx.x * TN;
    float acc[TM][TN] = {};
    float a_reg[TM];
    float b_reg[TN];
    for (unsigned int k0 = 0; k0 < size; k0 += BK) {
        // BEGIN PUZZLE (roughly 22 lines)
        // The a tile: BM rows of BK / 4 float4s. A float4 runs along k, so its
        // four values go to four different rows of the transposed tile.
        for (unsigned int i = tid; i < BM * BK / 4; i += THREADS) {
            unsigned int r = i / (BK / 4);
            unsigned int c = i % (BK / 4) * 4;
            float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            // size % 4 == 0: a float4 lies either wholly inside a row or wholly past its end.
            if (row0 + r < size && k0 + c < size) {
                v = a4[((row0 + r) * size + k0 + c) / 4];
            }
            a_tile[c + 0][r] = v.x;
            a_tile[c + 1][r] = v.y;
            a_tile[c + 2][r] = v.z;
            a_tile[c + 3][r] = v.w;
        }
        // The b tile: BK rows of BN / 4 float4s, stored as they are.
        for (unsigned int i = tid; i < BK * BN / 4; i += THREADS) {
            unsigned int r = i / (BN / 4);
            unsigned int c = i % (BN / 4) * 4;
            float4 v = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
            if (k0 + r < size && col0 + c < size) {
                v = b4[((k0 + r) * size + col0 + c) / 4];
            }
            *reinterpret_cast<float4*>(&b_tile[r][c]) = v;
        }
        // END PUZZLE
        __syncthreads();
#pragma unroll
        for (unsigned int k = 0; k < BK; k++) {
            // Both fragments are contiguous now: TM / 4 + TN / 4 float4 reads.
#pragma unroll
            for (unsigned int i = 0; i < TM; i += 4) {
                float4 v = *reinterpret_cast<const float4*>(&a_tile[k][tr + i]);
                a_reg[i + 0] = v.x;
                a_reg[i + 1] = v.y;
                a_reg[i + 2] = v.z;
                a_reg[i + 3] = v.w;
            }
#pragma unroll
            for (unsigned int j = 0; j < TN; j += 4) {
                float4 v = *reinterpret_cast<const float4*>(&b_tile[k][tc + j]);
                b_reg[j + 0] = v.x;
                b_reg[j + 1] = v.y;
                b_reg[j + 2] = v.z;
                b_reg[j + 3] = v.w;
            }
#pragma unroll
            for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
                for (unsigned int j = 0; j < TN; j++) {
                    acc[i][j] += a_reg[i] * b_reg[j];
                }
            }
        }
        __syncthreads();
    }
    // Each row of the patch goes out as TN / 4 float4 stores.
#pragma unroll
    for (unsigned int i = 0; i < TM; i++) {
#pragma unroll
        for (unsigned int j = 0; j < TN; j += 4) {
            unsigned int row = row0 + tr + i;
            unsigned int col = col0 + tc + j;
            if (row < size && col < size) {
                out4[(row * size + col) / 4] =
                    make_float4(acc[i][j], acc[i][j + 1], acc[i][j + 2], acc[i][j + 3]);
            }
        }
    }
}
