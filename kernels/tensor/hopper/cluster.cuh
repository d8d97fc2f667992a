// Given: what a block of a cluster needs to share a stage with its
// neighbours (Puzzle 35, steps 6 and 8): a TMA copy multicast into every
// block of the cluster, an arrival on a neighbour's mbarrier, and a wait
// that sees what the neighbours wrote. Needs tma.cuh and mbarrier.cuh
// (through tma.cuh) first.

// Given: tma_load, but the box lands at the same offset `to` in the shared
// memory of every block of the cluster named in `blocks` (bit r: rank r),
// and each block's barrier at `bar`'s offset counts the bytes it received.
__device__ __forceinline__ void tma_load_multicast(void* to, const TensorMap* map, unsigned int x,
                                                   unsigned int y, unsigned long long* bar,
                                                   unsigned short blocks) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;" ::"r"(shared_address(to)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(shared_address(bar)),
        "h"(blocks)
        : "memory");
}

// Given: one arrival on the barrier at `bar`'s offset in block `rank` of the
// cluster (this block included). Its ordering is the default, release at
// the block's scope: with `.release.cluster` the arrival also waited for
// the wgmma group left in flight, and the kernel took 50 % longer.
__device__ __forceinline__ void barrier_arrive_in(unsigned long long* bar, unsigned int rank) {
    unsigned int remote;
    asm volatile("mapa.shared::cluster.u32 %0, %1, %2;"
                 : "=r"(remote)
                 : "r"(shared_address(bar)), "r"(rank));
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote)
                 : "memory");
}

// Given: barrier_wait, also seeing what other blocks of the cluster wrote
// before their arrivals.
__device__ __forceinline__ void barrier_wait_cluster(unsigned long long* bar, unsigned int parity) {
    unsigned int done = 0;
    while (!done) {
        asm volatile(
            "{\n .reg .pred p;\n"
            " mbarrier.try_wait.parity.acquire.cluster.shared::cta.b64 p, [%1], %2;\n"
            " selp.u32 %0, 1, 0, p;\n}"
            : "=r"(done)
            : "r"(shared_address(bar)), "r"(parity)
            : "memory");
    }
}
