// Puzzle 23: stream compaction. Each block keeps the positive elements of its
// TPB inputs, in order, at the start of its row of `out`, fills the rest of
// the row with zeros, and writes how many it kept to `counts`.
#define TPB 64
#define WARP 32
#define FULL_MASK 0xffffffffu

extern "C" __global__ void compact_blocks(float* out, unsigned int* counts, const float* a,
                                          unsigned int size) {
    __shared__ unsigned int warp_counts[TPB / WARP];
    unsigned int t = threadIdx.x;
    unsigned int lane = t % WARP;
    unsigned int warp = t / WARP;
    unsigned int i = blockIdx.x * TPB + t;
    float v = (i < size) ? a[i] : 0.0f;
    // Past the end, v is 0 and not kept.
    bool keep = v > 0.0f;
    float* row = out + blockIdx.x * TPB;

    // BEGIN PUZZLE (roughly 20 lines)
    // One vote per lane: bit l of `kept` is lane l's `keep`.
    unsigned int kept = __ballot_sync(FULL_MASK, keep);
    // The lanes below this one that keep: an exclusive prefix sum of the
    // votes, in one instruction.
    unsigned int rank = __popc(kept & ((1u << lane) - 1u));
    if (lane == 0) {
        warp_counts[warp] = __popc(kept);
    }
    __syncthreads();
    // What the warps before this one keep goes first.
    unsigned int before = 0;
    unsigned int total = 0;
    for (unsigned int w = 0; w < TPB / WARP; w++) {
        if (w < warp) {
            before += warp_counts[w];
        }
        total += warp_counts[w];
    }
    if (keep) {
        row[before + rank] = v;
    }
    if (t >= total) {
        row[t] = 0.0f;
    }
    if (t == 0) {
        counts[blockIdx.x] = total;
    }
    // END PUZZLE
}
