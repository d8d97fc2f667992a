// Given: Puzzle 34's barriers in shared memory (mbarriers). A barrier counts
// arrivals, and bytes when a copy engine is told to count them; a phase
// completes when both reach what was expected, and the next phase begins.
// Puzzle 35's steps 5 and 6 include them too.
#include "address.cuh"

// A barrier whose phases complete after `count` arrivals each.
__device__ __forceinline__ void barrier_init(unsigned long long* bar, unsigned int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
                 : "memory");
    // Makes the initialised barrier visible to the copy engines (the "async
    // proxy"), which update it from outside the threads.
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
}

// One arrival (release: this thread's earlier writes are visible to a thread
// whose wait sees the phase complete).
__device__ __forceinline__ void barrier_arrive(unsigned long long* bar) {
    // The barrier's state before the arrival is not needed: `_` discards it.
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

// One arrival that also says `bytes` more bytes must land before this phase
// completes: the phase needs both the arrivals and the bytes.
__device__ __forceinline__ void barrier_arrive_expect(unsigned long long* bar, unsigned int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
                 "r"(bytes)
                 : "memory");
}

// Waits until the phase with this parity (0 for phases 0, 2, 4..., 1 for
// 1, 3, 5...) has completed (acquire).
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
