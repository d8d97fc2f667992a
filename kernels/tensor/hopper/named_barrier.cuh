// Given: named barriers. A block has 16 hardware barriers; __syncthreads()
// is barrier 0 for every thread of the block. With an id and a thread count
// (a multiple of 32), some warps synchronise without the rest: `bar.sync`
// waits until `threads` threads have reached barrier `id`, counting those
// that passed it with `bar.arrive`, which does not wait. Writes before an
// arrival are visible after the wait it completes.
__device__ __forceinline__ void named_barrier_sync(unsigned int id, unsigned int threads) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

__device__ __forceinline__ void named_barrier_arrive(unsigned int id, unsigned int threads) {
    asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
