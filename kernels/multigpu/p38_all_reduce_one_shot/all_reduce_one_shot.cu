// Puzzle 38: a one-shot all-reduce. Step 1, given, makes each GPU's own
// `grad` (the stand-in for a backward pass: its input, doubled). Step 2 sums
// every GPU's `grad` into every GPU's `out`, each GPU reading all of its
// peers' buffers directly.
//
// Nothing orders one GPU's step 1 before another GPU's step 2: each GPU runs
// its own stream. So before reading, every block meets the same block on
// every other GPU at a barrier made of flags in each GPU's memory; and
// before leaving, it meets them again, so that no GPU's next step 1 can
// overwrite a `grad` a peer is still reading.
#include <cuda/atomic>
#include "../peers.cuh"

using Flag = cuda::atomic_ref<unsigned int, cuda::thread_scope_system>;

// Step 1, given: this GPU's gradient.
extern "C" __global__ void local_grad(float* grad, const float* a, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        grad[i] = 2.0f * a[i];
    }
}

// Given: every thread of this block returns only once this block has
// reached `round` on every GPU. flags.rank[p][q * gridDim.x + b] is where
// GPU q's block b says, in GPU p's memory, which round it has reached.
// Thread p (p < ranks) of block b talks to GPU p.
__device__ void meet_peers(Peers<unsigned int> flags, unsigned int rank, unsigned int ranks,
                           unsigned int round) {
    unsigned int peer = threadIdx.x;
    unsigned int slot = blockIdx.x;
    // Every thread's reads and writes so far come before any flag: the
    // barrier brings them to the threads that store the flags.
    __syncthreads();
    if (peer < ranks) {
        // Release: everything this GPU wrote before (its step 1 included,
        // by stream order) is visible to whoever acquires this flag.
        Flag(flags.rank[peer][rank * gridDim.x + slot]).store(round, cuda::memory_order_release);
        // Acquire: once the peer's flag shows this round, its writes are ours to read.
        Flag mine(flags.rank[rank][peer * gridDim.x + slot]);
        while (mine.load(cuda::memory_order_acquire) < round) {
        }
    }
    __syncthreads();
}

// Step 2. `runs` counts this block's runs, so each run's rounds are new
// numbers and the flags never need resetting.
extern "C" __global__ void all_reduce(float* out, Peers<const float> grad,
                                      Peers<unsigned int> flags, unsigned int* runs,
                                      unsigned int rank, unsigned int ranks, unsigned int size) {
    __shared__ unsigned int run;
    if (threadIdx.x == 0) {
        run = ++runs[blockIdx.x];
    }
    __syncthreads();
    // BEGIN PUZZLE (roughly 10 lines)
    meet_peers(flags, rank, ranks, 2 * run - 1);
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < size;
         i += gridDim.x * blockDim.x) {
        float sum = 0.0f;
        for (unsigned int p = 0; p < ranks; ++p) {
            sum += grad.rank[p][i];
        }
        out[i] = sum;
    }
    meet_peers(flags, rank, ranks, 2 * run);
    // END PUZZLE
}
