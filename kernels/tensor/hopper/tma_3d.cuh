// Given: the TMA's tile load from a three-dimensional tensor map (Puzzle 36,
// step 2): q, k and v are [HEADS, SEQ, DIM], and a box of them is one
// head's rows. As `tma_load` (tma.cuh) otherwise.
#include "tma.cuh"

// The box of `map` whose first element is at column `x`, row `y` of head `z`
// into shared memory at `to`, its bytes counted off `bar` as they land.
__device__ __forceinline__ void tma_load_3d(void* to, const TensorMap* map, unsigned int x,
                                            unsigned int y, unsigned int z,
                                            unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3, %4}], [%5];" ::"r"(shared_address(to)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(z),
        "r"(shared_address(bar))
        : "memory");
}
