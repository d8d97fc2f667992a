#include "address.cuh"

// Given: a shared-memory matrix descriptor. Bits 0-13: the start address / 16;
// 16-29: the "leading" byte offset / 16; 32-45: the "stride" byte offset / 16;
// 62-63: the swizzle (1: 128 bytes). With the 128-byte swizzle, the stride is
// the distance between groups of 8 rows (8 x 128 bytes); the leading offset
// is unused for a (k along the row) and, for b (n along the row), the
// distance between its 64-column blocks.
__device__ __forceinline__ unsigned long long descriptor(const bf16* start, unsigned int leading,
                                                         unsigned int stride) {
    unsigned long long address = shared_address(start);
    return ((address & 0x3FFFF) >> 4) | (static_cast<unsigned long long>(leading >> 4) << 16) |
           (static_cast<unsigned long long>(stride >> 4) << 32) | (1ull << 62);
}

// Given: wgmma's three synchronisations. fence: the accumulators' registers
// are ready for the tensor cores; commit: close a group of wgmmas issued;
// wait: at most PENDING groups still running.
__device__ __forceinline__ void wgmma_fence() {
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}

__device__ __forceinline__ void wgmma_commit() {
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}

template <int PENDING>
__device__ __forceinline__ void wgmma_wait() {
    asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(PENDING) : "memory");
}

// Given: copies made by threads (cp.async counts as such) become visible to
// the tensor cores' reads, which go through the "async proxy".
__device__ __forceinline__ void fence_for_async_reads() {
    asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
}
