// Puzzle 43: a cross-entropy loss and its gradient, fused. A block takes a
// row of logits, keeps it in registers (VECS float4s a thread), and writes
// the row's loss, log(sum of exp) - logit[target], and its gradient,
// softmax - onehot(target). The probabilities are never stored: each is
// written as its gradient. A row holds at most 4 * VECS * TPB logits, a
// multiple of 4.
#define TPB 32
#define VECS 1
#define WARP 32
#define FULL_MASK 0xffffffffu
#define LOWEST (-3.402823466e38f)

// A part of a row as the online softmax sees it (Puzzle 28, step 2): its
// largest value, and its sum of exp(v - largest).
struct Part {
    float largest;
    float sum;
};

// Two parts as one: both sums brought to the larger maximum, then added.
__device__ Part combine(Part a, Part b) {
    float largest = fmaxf(a.largest, b.largest);
    Part c;
    c.largest = largest;
    c.sum = a.sum * expf(a.largest - largest) + b.sum * expf(b.largest - largest);
    return c;
}

// The block's part, the whole row, returned to every thread: the warps'
// butterflies, then the warps' parts through shared memory.
__device__ Part block_combine(Part p, Part* slots) {
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        Part other;
        other.largest = __shfl_xor_sync(FULL_MASK, p.largest, offset);
        other.sum = __shfl_xor_sync(FULL_MASK, p.sum, offset);
        p = combine(p, other);
    }
    if (threadIdx.x % WARP == 0) {
        slots[threadIdx.x / WARP] = p;
    }
    __syncthreads();
    Part row = slots[0];
    for (unsigned int w = 1; w < TPB / WARP; ++w) {
        row = combine(row, slots[w]);
    }
    __syncthreads();
    return row;
}

__device__ float max4(float4 v) {
    return fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w));
}

__device__ float4 exp4(float4 v, float shift) {
    return make_float4(expf(v.x - shift), expf(v.y - shift), expf(v.z - shift), expf(v.w - shift));
}

__device__ float4 scale4(float4 v, float s) {
    return make_float4(v.x * s, v.y * s, v.z * s, v.w * s);
}

// Lane `lane` of v (0 to 3), and a float4 with 1 in that lane, 0 elsewhere.
__device__ float pick4(float4 v, unsigned int lane) {
    return lane == 0 ? v.x : lane == 1 ? v.y : lane == 2 ? v.z : v.w;
}

__device__ float4 onehot4(unsigned int lane) {
    return make_float4(lane == 0, lane == 1, lane == 2, lane == 3);
}

extern "C" __global__ void cross_entropy(float* loss, float* dlogits, const float* logits,
                                         const unsigned int* targets, unsigned int vocab) {
    __shared__ Part slots[TPB / WARP];
    size_t start = (size_t)blockIdx.x * vocab;
    const float4* x4 = reinterpret_cast<const float4*>(logits + start);
    float4* d4 = reinterpret_cast<float4*>(dlogits + start);
    unsigned int quads = vocab / 4;
    unsigned int t = threadIdx.x;
    unsigned int target = targets[blockIdx.x];

    // BEGIN PUZZLE (roughly 28 lines)
    // The thread's float4s, in registers; past the end, LOWEST, whose exp
    // is 0. The thread that holds the target's logit keeps it for the loss.
    float4 v[VECS];
    Part mine = {LOWEST, 0.0f};
    float target_logit = 0.0f;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        v[k] = (q < quads) ? x4[q] : make_float4(LOWEST, LOWEST, LOWEST, LOWEST);
        mine.largest = fmaxf(mine.largest, max4(v[k]));
        if (q == target / 4) {
            target_logit = pick4(v[k], target % 4);
        }
    }
    // Exponentials relative to the thread's own maximum, kept for the output.
    // A thread with nothing of the row sums exp(0) = 1s, which vanish when
    // joined: combine scales them by exp(LOWEST - the row's maximum) = 0.
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        v[k] = exp4(v[k], mine.largest);
        mine.sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    Part row = block_combine(mine, slots);
    // One factor takes this thread's exponentials to probabilities.
    float to_probability = expf(mine.largest - row.largest) / row.sum;
#pragma unroll
    for (unsigned int k = 0; k < VECS; ++k) {
        unsigned int q = t + k * TPB;
        if (q < quads) {
            float4 p = scale4(v[k], to_probability);
            if (q == target / 4) {
                // -log of the target's probability, without taking the log of
                // a probability that may be too small for a float.
                loss[blockIdx.x] = logf(row.sum) + row.largest - target_logit;
                float4 one = onehot4(target % 4);
                p = make_float4(p.x - one.x, p.y - one.y, p.z - one.z, p.w - one.w);
            }
            d4[q] = p;
        }
    }
    // END PUZZLE
}
