// Puzzle 42: LayerNorm's backward pass, in two launches.
//
// row_gradients: a block takes RPB consecutive rows. For each, it recomputes
// the row's mean and reciprocal standard deviation, writes dx, and adds the
// row's share of dgamma and dbeta (dy * xhat and dy, for each column) into
// registers. At the end it writes its sums for every column, one row of
// partial_gamma and of partial_beta.
// column_sums: SPLIT threads a column add the blocks' partial sums.
#define TPB 32
#define VECS 1
#define RPB 4
#define COL_TPB 8
#define SPLIT 2
#define WARP 32
#define FULL_MASK 0xffffffffu
#define EPS 1e-5f

// The block's sums of two values per thread, returned to every thread: one
// pass through the warps' shuffles and shared memory for both.
__device__ float2 block_sum2(float2 v, float2* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        v.x += __shfl_xor_sync(FULL_MASK, v.x, offset);
        v.y += __shfl_xor_sync(FULL_MASK, v.y, offset);
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = v;
    }
    __syncthreads();
    float2 s = slots[0];
    for (unsigned int w = 1; w < TPB / WARP; ++w) {
        s.x += slots[w].x;
        s.y += slots[w].y;
    }
    __syncthreads();
    return s;
}

__device__ float4 zero4() {
    return make_float4(0.0f, 0.0f, 0.0f, 0.0f);
}

// Lane by lane: a + b, a * b, a * s, a - s; and the four lanes' sum.
__device__ float4 add4(float4 a, float4 b) {
    return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w + b.w);
}

__device__ float4 mul4(float4 a, float4 b) {
    return make_float4(a.x * b.x, a.y * b.y, a.z * b.z, a.w * b.w);
}

__device__ float4 scale4(float4 a, float s) {
    return make_float4(a.x * s, a.y * s, a.z * s, a.w * s);
}

__device__ float4 shift4(float4 a, float s) {
    return make_float4(a.x - s, a.y - s, a.z - s, a.w - s);
}

__device__ float sum4(float4 a) {
    return (a.x + a.y) + (a.z + a.w);
}

extern "C" __global__ void row_gradients(float* dx, float* partial_gamma, float* partial_beta,
                                         const float* x, const float* dy, const float* gamma,
                                         unsigned int rows, unsigned int cols) {
    __shared__ float2 slots[TPB / WARP];
    // Rows start at multiples of 4 floats: float4 loads are aligned.
    unsigned int quads = cols / 4;
    unsigned int t = threadIdx.x;
    const float4* gamma4 = reinterpret_cast<const float4*>(gamma);
    // This thread's columns: float4 t + k * TPB of every row. Past the end of
    // a row, zeros, which add nothing to any sum below.
    float4 g[VECS], dg[VECS], db[VECS];
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        g[k] = (q < quads) ? gamma4[q] : zero4();
        dg[k] = zero4();
        db[k] = zero4();
    }
    unsigned int first = blockIdx.x * RPB;
    unsigned int last = min(first + RPB, rows);
    for (unsigned int r = first; r < last; ++r) {
        const float4* x4 = reinterpret_cast<const float4*>(x + (size_t)r * cols);
        const float4* dy4 = reinterpret_cast<const float4*>(dy + (size_t)r * cols);
        float4* dx4 = reinterpret_cast<float4*>(dx + (size_t)r * cols);
        float4 xv[VECS], dyv[VECS];
#pragma unroll
        for (unsigned int k = 0; k < VECS; ++k) {
            unsigned int q = t + k * TPB;
            xv[k] = (q < quads) ? x4[q] : zero4();
            dyv[k] = (q < quads) ? dy4[q] : zero4();
        }

        // BEGIN PUZZLE (roughly 30 lines)
        // Pass 1 through the block: the row's sums of x and of gamma * dy.
        float2 part = make_float2(0.0f, 0.0f);
#pragma unroll
        for (unsigned int k = 0; k < VECS; ++k) {
            part.x += sum4(xv[k]);
            part.y += sum4(mul4(g[k], dyv[k]));
        }
        float2 sums = block_sum2(part, slots);
        float mean = sums.x / cols;
        float mean_g = sums.y / cols;
        // Pass 2: the squared deviations, and gamma * dy times the
        // deviations. Past the end of the row the lanes are not deviations:
        // leave them out. xv keeps the deviations.
        part = make_float2(0.0f, 0.0f);
#pragma unroll
        for (unsigned int k = 0; k < VECS; ++k) {
            if (t + k * TPB < quads) {
                xv[k] = shift4(xv[k], mean);
                part.x += sum4(mul4(xv[k], xv[k]));
                part.y += sum4(mul4(mul4(g[k], dyv[k]), xv[k]));
            }
        }
        sums = block_sum2(part, slots);
        float rstd = rsqrtf(sums.x / cols + EPS);
        // mean(gamma * dy * xhat), with xhat = deviation * rstd.
        float mean_gx = sums.y / cols * rstd;
#pragma unroll
        for (unsigned int k = 0; k < VECS; ++k) {
            unsigned int q = t + k * TPB;
            if (q < quads) {
                float4 xhat = scale4(xv[k], rstd);
                float4 inner = shift4(add4(mul4(g[k], dyv[k]), scale4(xhat, -mean_gx)), mean_g);
                dx4[q] = scale4(inner, rstd);
                dg[k] = add4(dg[k], mul4(dyv[k], xhat));
                db[k] = add4(db[k], dyv[k]);
            }
        }
        // END PUZZLE
    }
    float4* pg = reinterpret_cast<float4*>(partial_gamma + (size_t)blockIdx.x * cols);
    float4* pb = reinterpret_cast<float4*>(partial_beta + (size_t)blockIdx.x * cols);
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            pg[q] = dg[k];
            pb[q] = db[k];
        }
    }
}

extern "C" __global__ void column_sums(float* dgamma, float* dbeta, const float* partial_gamma,
                                       const float* partial_beta, unsigned int cols,
                                       unsigned int blocks) {
    // COL_TPB columns a block, SPLIT threads a column: thread y adds partial
    // rows y, y + SPLIT, …, and the SPLIT sums meet in shared memory.
    // Consecutive threads read consecutive columns of each partial row.
    __shared__ float2 sums[SPLIT][COL_TPB];
    unsigned int j = blockIdx.x * COL_TPB + threadIdx.x;
    float2 s = make_float2(0.0f, 0.0f);
    if (j < cols) {
        for (unsigned int b = threadIdx.y; b < blocks; b += SPLIT) {
            s.x += partial_gamma[(size_t)b * cols + j];
            s.y += partial_beta[(size_t)b * cols + j];
        }
    }
    sums[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && j < cols) {
        for (unsigned int y = 1; y < SPLIT; ++y) {
            s.x += sums[y][threadIdx.x].x;
            s.y += sums[y][threadIdx.x].y;
        }
        dgamma[j] = s.x;
        dbeta[j] = s.y;
    }
}
