// Puzzle 34, step 3: a thread-block cluster sums its blocks' partial sums
// through distributed shared memory. The CLUSTER blocks of a cluster run at
// the same time on neighbouring SMs, and each can read the others' shared
// memory. Each block reduces its TPB values; block 0 of the cluster then
// reads every block's result straight from that block's shared memory, with
// no trip through global memory and no second launch. out[c] is the sum of
// row c of a, a row being CLUSTER * TPB values.
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

#define TPB 64
#define CLUSTER 4
#define WARP 32
static_assert(CLUSTER <= WARP, "block 0's first warp gathers one partial sum a lane");

// The cluster's shape is part of the kernel: a plain launch of
// CLUSTERS * CLUSTER blocks forms the clusters.
extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1)
    cluster_sum(float* out, const float* a) {
    __shared__ float partial[TPB];
    cg::cluster_group cluster = cg::this_cluster();
    // Given: the block's own sum, left in partial[0] (Puzzle 17's tree).
    partial[threadIdx.x] = a[blockIdx.x * TPB + threadIdx.x];
    __syncthreads();
    for (unsigned int half = TPB / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            partial[threadIdx.x] += partial[threadIdx.x + half];
        }
        __syncthreads();
    }
    // BEGIN PUZZLE (roughly 12 lines)
    // Every block's partial[0] is written, and visible across the cluster.
    cluster.sync();
    if (cluster.block_rank() == 0 && threadIdx.x < WARP) {
        float value = 0.0f;
        if (threadIdx.x < CLUSTER) {
            // Block threadIdx.x's partial[0], wherever that block runs.
            float* theirs = cluster.map_shared_rank(partial, threadIdx.x);
            value = theirs[0];
        }
        for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
            value += __shfl_down_sync(0xffffffff, value, offset);
        }
        if (threadIdx.x == 0) {
            out[blockIdx.x / CLUSTER] = value;
        }
    }
    // A block's shared memory goes when it exits: none may leave while
    // block 0 could still be reading it.
    cluster.sync();
    // END PUZZLE
}
