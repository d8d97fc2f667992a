// Given: Puzzle 35 step 3's asynchronous copies, which move global memory
// into shared memory without passing through registers or making the thread
// wait. Puzzle 36 and step 4 include them too.
#include "address.cuh"

// One 16-byte copy from global to shared memory, in flight until a
// cp.async.wait_group lets it land. .cg: cached in L2 only, as a tile read
// once per block should be.
__device__ __forceinline__ void copy_async_16(void* to, const void* from) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(shared_address(to)), "l"(from));
}

// Closes the group of copies issued since the last one.
__device__ __forceinline__ void commit_copies() {
    asm volatile("cp.async.commit_group;");
}

// Waits until at most PENDING groups are still in flight.
template <int PENDING>
__device__ __forceinline__ void wait_copies() {
    asm volatile("cp.async.wait_group %0;" ::"n"(PENDING));
}
