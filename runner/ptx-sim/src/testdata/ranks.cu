// Ranks (GPUs) of one step: a one-shot all-reduce over peers' pointers
// passed by value, with flags released and acquired at system scope; the
// mistakes the checker must catch; and controls that must pass.
#include <cuda/atomic>

#define MAX_GPUS 8

struct Floats { float* rank[MAX_GPUS]; };
struct Words { unsigned int* rank[MAX_GPUS]; };

using SysFlag = cuda::atomic_ref<unsigned int, cuda::thread_scope_system>;
using DevFlag = cuda::atomic_ref<unsigned int, cuda::thread_scope_device>;

enum Mistake { NONE, NO_ENTRY, DEVICE_SCOPE, NO_SIGNAL, VOLATILE_POLL, LATE_SIGNAL };

// Step 1 on every rank: its input, made on its GPU.
extern "C" __global__ void fill(float* a, unsigned int rank, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) a[i] = float((rank + 1) * (i + 1));
}

// Block b of every rank meets block b of every other: thread p signals rank
// p (in its slot for this rank) and waits for rank p's signal in its own.
// `count[b]` is this block's count of meetings, never reset.
template <typename Flag, Mistake m>
__device__ void meet(Words flags, unsigned int* count, unsigned int rank, unsigned int ranks) {
    __shared__ unsigned int epoch;
    __syncthreads();
    if (threadIdx.x == 0) epoch = ++count[blockIdx.x];
    __syncthreads();
    if (threadIdx.x < ranks) {
        unsigned int p = threadIdx.x;
        unsigned int* mine = &flags.rank[rank][p * gridDim.x + blockIdx.x];
        if (m != NO_SIGNAL) Flag(flags.rank[p][rank * gridDim.x + blockIdx.x]).store(epoch, cuda::memory_order_release);
        if (m == VOLATILE_POLL) {
            while (*(volatile unsigned int*)mine < epoch) {
            }
        } else {
            while (Flag(*mine).load(cuda::memory_order_acquire) < epoch) {
            }
        }
    }
    __syncthreads();
}

template <typename Flag, Mistake m>
__device__ void all_reduce(float* out, Floats a, Words flags, unsigned int* count, unsigned int rank,
                           unsigned int ranks, unsigned int size) {
    if (m == LATE_SIGNAL && rank > 0 && threadIdx.x == 0) {
        // A long computation before the signal: peers wait, and that is no deadlock.
        float x = 0.0f;
        for (unsigned int k = 0; k < 1000 * size; k++) x = x * 0.5f + 1.0f;
        if (x < 0.0f) out[0] = x;
    }
    if (m != NO_ENTRY) meet<Flag, m>(flags, count, rank, ranks);
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) {
        float sum = 0.0f;
        for (unsigned int p = 0; p < ranks; p++) sum += a.rank[p][i];
        out[i] = sum;
    }
    meet<Flag, m>(flags, count, rank, ranks);
}

#define ALL_REDUCE(name, Flag, m)                                                                      \
    extern "C" __global__ void name(float* out, Floats a, Words flags, unsigned int* count,            \
                                    unsigned int rank, unsigned int ranks, unsigned int size) {        \
        all_reduce<Flag, m>(out, a, flags, count, rank, ranks, size);                                  \
    }

ALL_REDUCE(all_reduce, SysFlag, NONE)
ALL_REDUCE(all_reduce_no_entry, SysFlag, NO_ENTRY)
ALL_REDUCE(all_reduce_device_scope, DevFlag, DEVICE_SCOPE)
ALL_REDUCE(all_reduce_no_signal, SysFlag, NO_SIGNAL)
ALL_REDUCE(all_reduce_volatile_poll, SysFlag, VOLATILE_POLL)
ALL_REDUCE(all_reduce_late_signal, SysFlag, LATE_SIGNAL)

// Each rank reads the next rank's input: per-rank parameters and tables.
extern "C" __global__ void pull_next(float* out, Floats a, unsigned int rank, unsigned int ranks,
                                     unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < size) out[i] = a.rank[(rank + 1) % ranks][i] + 1000.0f * float(rank);
}

// Polls a flag nobody sets, but gives up: a bounded wait is no deadlock.
extern "C" __global__ void poll_bounded(float* out, Words flags, unsigned int rank, unsigned int tries) {
    unsigned int t = 0;
    while (t < tries && SysFlag(flags.rank[rank][0]).load(cuda::memory_order_acquire) == 0) t++;
    out[blockIdx.x * blockDim.x + threadIdx.x] = float(t);
}

// Sleeps between polls of a flag nobody sets: a deadlock all the same.
extern "C" __global__ void poll_sleeping(float* out, Words flags, unsigned int rank) {
    while (SysFlag(flags.rank[rank][0]).load(cuda::memory_order_acquire) == 0) __nanosleep(100);
    out[blockIdx.x * blockDim.x + threadIdx.x] = 1.0f;
}
