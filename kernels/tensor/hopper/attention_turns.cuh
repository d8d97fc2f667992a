// Given, from Puzzle 36's step 4 on: the consumers' turns, for a kernel
// that defines CONSUMERS. Consumer c's turn is named barrier 1 + c, whose
// phase completes with its own 128 threads waiting and the 128 of the
// consumer before it arriving. One consumer alone takes every turn.
#include "named_barrier.cuh"

__device__ __forceinline__ void wait_turn(unsigned int consumer) {
    if (CONSUMERS > 1) {
        named_barrier_sync(1 + consumer, 256);
    }
}

// After issuing: the next consumer's products may queue behind these.
__device__ __forceinline__ void pass_turn(unsigned int consumer) {
    if (CONSUMERS > 1) {
        named_barrier_arrive(1 + (consumer + 1) % CONSUMERS, 256);
    }
}
