// Puzzle 29, step 1: LayerNorm of each row, one block per row, the row read
// once into registers (VECS float4s a thread, as in Puzzle 28's step 4). Each
// thread finds the count, mean and squared deviations of its own values; the
// block combines the threads' groups (given), and every thread writes
// (x - mean) / sqrt(variance + EPS) * gamma + beta.
#define TPB 32
#define VECS 1
#define WARP 32
#define FULL_MASK 0xffffffffu
#define EPS 1e-5f

// A group of values: how many, their mean, and the sum of their squared
// deviations from it (the variance is m2 / n).
struct Moments {
    float n;
    float mean;
    float m2;
};

// Two groups as one (Chan, Golub and LeVeque): the mean moves towards the
// other group's by its share of the count, and the squared deviations gain
// the gap between the two means.
__device__ Moments combine(Moments a, Moments b) {
    float n = a.n + b.n;
    if (n == 0.0f) {
        return a;
    }
    float gap = b.mean - a.mean;
    // The fast division (within 2 units in the last place): a weight
    // between 0 and 1, and every combine waits on one.
    float share = __fdividef(b.n, n);
    Moments c;
    c.n = n;
    c.mean = a.mean + gap * share;
    c.m2 = a.m2 + b.m2 + gap * gap * a.n * share;
    return c;
}

// The block's moments, returned to every thread: a butterfly in each warp
// (the lower lane's group always first, so both partners compute the same
// float), one slot per warp, then every thread folds the slots in order.
__device__ Moments block_moments(Moments m, float* slots) {
    unsigned int lane = threadIdx.x % WARP;
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        Moments other;
        other.n = __shfl_xor_sync(FULL_MASK, m.n, offset);
        other.mean = __shfl_xor_sync(FULL_MASK, m.mean, offset);
        other.m2 = __shfl_xor_sync(FULL_MASK, m.m2, offset);
        m = (lane & offset) ? combine(other, m) : combine(m, other);
    }
    const unsigned int warps = TPB / WARP;
    if (lane == 0) {
        unsigned int w = threadIdx.x / WARP;
        slots[w] = m.n;
        slots[warps + w] = m.mean;
        slots[2 * warps + w] = m.m2;
    }
    __syncthreads();
    Moments all = {slots[0], slots[warps], slots[2 * warps]};
    for (unsigned int w = 1; w < warps; ++w) {
        Moments next = {slots[w], slots[warps + w], slots[2 * warps + w]};
        all = combine(all, next);
    }
    __syncthreads();
    return all;
}

extern "C" __global__ void layernorm(float* out, const float* a, const float* gamma,
                                     const float* beta, unsigned int cols) {
    __shared__ float slots[3 * (TPB / WARP)];
    const float4* x = reinterpret_cast<const float4*>(a + (size_t)blockIdx.x * cols);
    float4* y = reinterpret_cast<float4*>(out + (size_t)blockIdx.x * cols);
    const float4* g = reinterpret_cast<const float4*>(gamma);
    const float4* b = reinterpret_cast<const float4*>(beta);
    unsigned int quads = cols / 4;
    unsigned int t = threadIdx.x;

    // The thread's float4s of the row, kept in registers from the one read;
    // the row's moments (count, mean, m2) over the block, and the scale
    // 1 / √(variance + EPS) that the given loop below normalizes with.
    float4 v[VECS] = {};
    Moments row = {0.0f, 0.0f, 0.0f};
    float scale = 0.0f;
    // BEGIN PUZZLE (roughly 20 lines)
    // The thread's values are one group, all in registers: their mean from
    // their sum, then their squared deviations from it. Exact, and no chain
    // of updates; the block joins the threads' groups with `combine`.
    float sum = 0.0f, count = 0.0f;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            v[k] = x[q];
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
            count += 4.0f;
        }
    }
    float mean = count > 0.0f ? sum / count : 0.0f;
    float m2 = 0.0f;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            float dx = v[k].x - mean, dy = v[k].y - mean;
            float dz = v[k].z - mean, dw = v[k].w - mean;
            m2 += (dx * dx + dy * dy) + (dz * dz + dw * dw);
        }
    }
    Moments m = {count, mean, m2};
    row = block_moments(m, slots);
    scale = rsqrtf(row.m2 / row.n + EPS);
    // END PUZZLE
    // Given: each value normalized, scaled by gamma and shifted by beta.
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            float4 gq = g[q], bq = b[q];
            y[q] = make_float4((v[k].x - row.mean) * scale * gq.x + bq.x,
                               (v[k].y - row.mean) * scale * gq.y + bq.y,
                               (v[k].z - row.mean) * scale * gq.z + bq.z,
                               (v[k].w - row.mean) * scale * gq.w + bq.w);
        }
    }
}
