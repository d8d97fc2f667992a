// Puzzle 25: a histogram in two launches. Each block counts its elements into
// bins in shared memory, with atomic additions; one block then adds the
// blocks' counts and scans them, so that starts[b] says where bin b's
// elements would begin in a copy of the input sorted by bin.
#define TPB 128
#define BINS 32
#define WARP 32
#define FULL_MASK 0xffffffffu

// BINS equal bins over [-4, 4): values below fall in the first, from 4 up in the last.
__device__ unsigned int bin_of(float x) {
    float scaled = (x + 4.0f) * (BINS / 8.0f);
    return min((unsigned int)fmaxf(scaled, 0.0f), BINS - 1u);
}

extern "C" __global__ void block_histograms(unsigned int* partials, const float* a,
                                            unsigned int size) {
    __shared__ unsigned int bins[BINS];
    unsigned int t = threadIdx.x;
    unsigned int i = blockIdx.x * TPB + t;

    // BEGIN PUZZLE (roughly 13 lines)
    // Shared memory holds whatever it held before: clear the bins first.
    for (unsigned int b = t; b < BINS; b += TPB) {
        bins[b] = 0;
    }
    __syncthreads();
    // Many threads may hit one bin at once: the read, the addition and the
    // write must happen as one step, or counts are lost.
    if (i < size) {
        atomicAdd(&bins[bin_of(a[i])], 1u);
    }
    __syncthreads();
    for (unsigned int b = t; b < BINS; b += TPB) {
        partials[blockIdx.x * BINS + b] = bins[b];
    }
    // END PUZZLE
}

// Launch 2, given: one block of BINS threads (a multiple of 32), one per bin.
// Each adds its bin over the blocks, then puzzle 24's block scan, exclusive,
// turns the counts into starts.
extern "C" __global__ void bin_starts(unsigned int* counts, unsigned int* starts,
                                      const unsigned int* partials, unsigned int blocks) {
    __shared__ unsigned int warp_totals[BINS / WARP];
    unsigned int b = threadIdx.x;
    unsigned int lane = b % WARP;
    unsigned int warp = b / WARP;
    unsigned int count = 0;
    for (unsigned int k = 0; k < blocks; k++) {
        count += partials[k * BINS + b];
    }
    counts[b] = count;
    unsigned int sum = count;
    for (unsigned int offset = 1; offset < WARP; offset *= 2) {
        unsigned int below = __shfl_up_sync(FULL_MASK, sum, offset);
        if (lane >= offset) {
            sum += below;
        }
    }
    if (lane == WARP - 1) {
        warp_totals[warp] = sum;
    }
    __syncthreads();
    unsigned int before = 0;
    for (unsigned int w = 0; w < warp; w++) {
        before += warp_totals[w];
    }
    // Exclusive: the bins before this one, not this one.
    starts[b] = before + sum - count;
}
