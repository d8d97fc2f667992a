// Given: the Tensor Memory Accelerator's copies (Puzzle 34 step 2, Puzzle 35
// steps 5 and 6), which count their bytes off an mbarrier as they land.
#include "mbarrier.cuh"

// `bytes` from global `from` to shared `to` by the copy engine, which counts
// them off `bar` as they land.
__device__ __forceinline__ void bulk_copy(void* to, const void* from, unsigned int bytes,
                                          unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" ::"r"(
            shared_address(to)),
        "l"(from), "r"(bytes), "r"(shared_address(bar))
        : "memory");
}

// The driver's CUtensorMap: 128 opaque bytes, passed by value. A kernel
// parameter marked __grid_constant__ stays in the parameter space, where the
// TMA reads it by address.
struct __align__(64) TensorMap {
    unsigned long long opaque[16];
};

// The TMA copies the box of `map` whose first element is at column `x`, row
// `y` of the matrix into shared memory at `to`, swizzled as the map says, and
// counts its bytes off `bar` as they land. Rows and columns past the
// matrix's edge arrive as zeros.
__device__ __forceinline__ void tma_load(void* to, const TensorMap* map, unsigned int x,
                                         unsigned int y, unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(to)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(shared_address(bar))
        : "memory");
}
