// Puzzle 39: a ring all-reduce. Every GPU's `a` is cut into `ranks` chunks.
// In the first `ranks - 1` steps (the reduce-scatter) each GPU adds its own
// chunk to the running sum the GPU before it holds, so that after them every
// GPU holds one chunk summed over all GPUs. In the next `ranks - 1` steps
// (the all-gather) each GPU copies the finished chunk the GPU before it
// holds. Each step moves one chunk over one link per GPU, all links at once.
//
// A GPU reads what the GPU before it wrote in the step before, so every step
// waits for that GPU's flag; and a GPU may not start its next run while the
// GPU after it is still reading this run's `out`.
#include <cuda/atomic>
#include "../peers.cuh"

using Flag = cuda::atomic_ref<unsigned int, cuda::thread_scope_system>;

// Given: out[i] = theirs[i] + mine[i] (or theirs[i] alone where mine is
// null) for this block's share of the elements first .. end - 1. Four at a
// time, so that each load across NVLink brings 16 bytes; `first` is a
// multiple of 4. The same block on every GPU takes the same elements.
__device__ void combine(float* out, const float* mine, const float* theirs, unsigned int first,
                        unsigned int end) {
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int quads = (end - first) / 4;
    const float4* theirs4 = reinterpret_cast<const float4*>(theirs + first);
    const float4* mine4 = reinterpret_cast<const float4*>(mine + first);
    float4* out4 = reinterpret_cast<float4*>(out + first);
    for (unsigned int q = blockIdx.x * blockDim.x + threadIdx.x; q < quads; q += stride) {
        float4 v = theirs4[q];
        if (mine != nullptr) {
            float4 m = mine4[q];
            v.x += m.x;
            v.y += m.y;
            v.z += m.z;
            v.w += m.w;
        }
        out4[q] = v;
    }
    // The last chunk may end between two quads.
    for (unsigned int i = first + 4 * quads + blockIdx.x * blockDim.x + threadIdx.x; i < end;
         i += stride) {
        out[i] = theirs[i] + (mine != nullptr ? mine[i] : 0.0f);
    }
}

// Given: this block tells the GPU that owns `flag` it has reached `round`.
// The barrier first brings every thread's writes to thread 0; its release
// then carries them to whoever acquires the flag.
__device__ void signal(unsigned int* flag, unsigned int round) {
    __syncthreads();
    if (threadIdx.x == 0) {
        Flag(*flag).store(round, cuda::memory_order_release);
    }
}

// Given: the whole block waits until `flag`, in this GPU's memory, shows
// `round` or later.
__device__ void wait_for(unsigned int* flag, unsigned int round) {
    if (threadIdx.x == 0) {
        Flag mine(*flag);
        while (mine.load(cuda::memory_order_acquire) < round) {
        }
    }
    __syncthreads();
}

// flags.rank[g][b] is where GPU g hears from the GPU before it that block b
// finished a step; flags.rank[g][gridDim.x + b] is where it hears from the
// GPU after it that block b finished a run. `runs` counts this block's
// runs, so each run's rounds are new numbers and no flag is ever reset.
extern "C" __global__ void all_reduce_ring(float* out, const float* a, Peers<const float> outs,
                                           Peers<const float> as, Peers<unsigned int> flags,
                                           unsigned int* runs, unsigned int rank,
                                           unsigned int ranks, unsigned int size) {
    __shared__ unsigned int run;
    if (threadIdx.x == 0) {
        run = ++runs[blockIdx.x];
    }
    __syncthreads();
    unsigned int prev = (rank + ranks - 1) % ranks;
    unsigned int next = (rank + 1) % ranks;
    unsigned int steps = 2 * (ranks - 1);
    // Chunks of a multiple of 4 elements; the last may be shorter, or empty.
    unsigned int chunk = ((size + ranks - 1) / ranks + 3) / 4 * 4;
    unsigned int* step_done_here = &flags.rank[rank][blockIdx.x];
    unsigned int* step_done_next = &flags.rank[next][blockIdx.x];
    unsigned int* run_done_here = &flags.rank[rank][gridDim.x + blockIdx.x];
    unsigned int* run_done_prev = &flags.rank[prev][gridDim.x + blockIdx.x];
    // The GPU after this one reads this `out` until its last step: this run
    // writes it only once that GPU has finished the last run.
    wait_for(run_done_here, run - 1);
    // BEGIN PUZZLE (roughly 12 lines)
    for (unsigned int step = 0; step < steps; ++step) {
        // Step s reads what the GPU before wrote in step s - 1 (step 0 reads
        // its `a`, there since before the launch).
        if (step > 0) {
            wait_for(step_done_here, (run - 1) * steps + step);
        }
        // Reduce-scatter step s and all-gather step s - (ranks - 1) both
        // work on chunk (rank - 1 - s) mod ranks.
        unsigned int c = (rank + 2 * ranks - 1 - step) % ranks;
        unsigned int first = min(c * chunk, size);
        unsigned int end = min(first + chunk, size);
        const float* theirs = step == 0 ? as.rank[prev] : outs.rank[prev];
        const float* mine = step < ranks - 1 ? a : nullptr;
        combine(out, mine, theirs, first, end);
        signal(step_done_next, (run - 1) * steps + step + 1);
    }
    // END PUZZLE
    // This run has read the GPU before's `out` for the last time.
    signal(run_done_prev, run);
}
