// Puzzle 36, step 2: one thread asks the Tensor Memory Accelerator's bulk
// copy for a whole tile, global to shared memory, and every thread waits for
// its bytes on an mbarrier. No thread moves a float itself. Then the block
// writes its tile back reversed, at the mirror position: out is a backwards.
#define TILE 256
#define TPB 128
static_assert(TILE * 4 % 16 == 0, "bulk copies move multiples of 16 bytes");

__device__ __forceinline__ unsigned int shared_address(const void* p) {
    return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}

// Given: a barrier whose phases complete after `count` arrivals each.
__device__ __forceinline__ void barrier_init(unsigned long long* bar, unsigned int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
                 : "memory");
    // Makes the initialised barrier visible to the copy engine (the "async
    // proxy"), which updates it from outside the threads.
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// Given: one arrival that also says `bytes` more bytes must land before this
// phase completes: the phase needs both the arrivals and the bytes.
__device__ __forceinline__ void barrier_arrive_expect(unsigned long long* bar, unsigned int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
                 "r"(bytes)
                 : "memory");
}

// Given: `bytes` from global `from` to shared `to` by the copy engine, which
// counts them off `bar` as they land.
__device__ __forceinline__ void bulk_copy(void* to, const void* from, unsigned int bytes,
                                          unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            shared_address(to)),
        "l"(from), "r"(bytes), "r"(shared_address(bar))
        : "memory");
}

// Given: waits until the phase with this parity has completed.
__device__ __forceinline__ void barrier_wait(unsigned long long* bar, unsigned int parity) {
    unsigned int done = 0;
    while (!done) {
        asm volatile(
            "{\n .reg .pred p;\n"
            " mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
            " selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(shared_address(bar)), "r"(parity)
            : "memory");
    }
}

extern "C" __global__ void bulk_copy_reverse(float* out, const float* a, unsigned int size) {
    // Bulk copies write 16-byte aligned shared memory.
    __shared__ __align__(16) float tile[TILE];
    __shared__ __align__(8) unsigned long long landed;
    unsigned int first = blockIdx.x * TILE;
    if (threadIdx.x == 0) {
        // Phase 0 completes after one arrival and the tile's bytes.
        barrier_init(&landed, 1);
    }
    __syncthreads();
    // BEGIN PUZZLE (roughly 5 lines)
    if (threadIdx.x == 0) {
        // The one arrival of phase 0, and the bytes it waits for.
        barrier_arrive_expect(&landed, TILE * sizeof(float));
        bulk_copy(tile, a + first, TILE * sizeof(float), &landed);
    }
    barrier_wait(&landed, 0);
    // END PUZZLE
    for (unsigned int i = threadIdx.x; i < TILE; i += TPB) {
        out[size - 1 - (first + i)] = tile[i];
    }
}
