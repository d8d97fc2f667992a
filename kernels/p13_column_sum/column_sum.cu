// Puzzle 13 (column sum): a block of TPB x TPB threads sums TPB adjacent columns, TPB row lanes per column.
// A power of two, so that halving always pairs every slot with another.
#define TPB 8

extern "C" __global__ void column_sum(float* out, const float* a, unsigned int batch, unsigned int size) {
    // cache[lane][c]: the partial sum of row lane `lane` for the block's column c.
    __shared__ float cache[TPB][TPB];

    // threadIdx.x picks the column, so neighboring threads read neighboring addresses.
    unsigned int col = blockIdx.x * TPB + threadIdx.x;
    unsigned int lane = threadIdx.y;

    // BEGIN PUZZLE (roughly 17 lines)
    // Lane l adds rows l, l + TPB, l + 2 TPB, ... of its column.
    float partial = 0.0f;
    if (col < size) {
        for (unsigned int row = lane; row < batch; row += TPB) {
            partial += a[row * size + col];
        }
    }
    cache[lane][threadIdx.x] = partial;
    __syncthreads();

    // The row sum's tree, run along y: each column folds its lanes independently.
    for (unsigned int stride = TPB / 2; stride > 0; stride /= 2) {
        if (lane < stride) {
            cache[lane][threadIdx.x] += cache[lane + stride][threadIdx.x];
        }
        __syncthreads();
    }

    if (lane == 0 && col < size) {
        out[col] = cache[0][threadIdx.x];
    }
    // END PUZZLE
}
