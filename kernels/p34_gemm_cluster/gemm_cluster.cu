// Puzzle 34, step 6: step 5 in clusters of CLUSTER blocks side by side
// along n. The blocks of a cluster compute tiles of out in the same rows, so
// they need the same tile of a: each block's producer asks the TMA for its
// 1 / CLUSTER share of that tile and *multicasts* it into every block of the
// cluster at once, so a travels from L2 once per cluster instead of once per
// block. Each block's `full` barrier still expects the whole stage, counted
// whichever block's copy brought the bytes; and since a producer now writes
// into its neighbours' shared memory too, a stage is `empty` only when the
// consumers of every block of the cluster are done with it. out = a · b,
// row-major SIZE x SIZE, SIZE a multiple of the tiles. Compute capability
// 9.0 only (compute_90a).
#include <cooperative_groups.h>
#include <cuda_bf16.h>

namespace cg = cooperative_groups;

#define BN 128
#define BK 64
#define STAGES 4
// Rows of blocks walked together (see block_tile).
#define GROUP 8
// Blocks of a cluster, side by side along n.
#define CLUSTER 2
// Consumer warpgroups, 64 rows of out each.
#define CONSUMERS 2
#define BM (CONSUMERS * 64)
#define THREADS ((CONSUMERS + 1) * 128)
#define A_TILE (BM * BK)
#define B_TILE (BK * BN)
// Bytes one stage receives: both tiles.
#define STAGE_BYTES ((A_TILE + B_TILE) * 2)
static_assert(BK == 64, "a row of a's tile is one 128-byte swizzle row");
static_assert(BN == 128 || BN == 256, "the wgmma shapes below are n128 and n256");
static_assert(BM % (CLUSTER * 8) == 0, "each block's share of a is whole 8-row groups");
// Rows of a's tile each block of the cluster copies for all of them.
#define A_SHARE (BM / CLUSTER)

typedef __nv_bfloat16 bf16;

// The driver's CUtensorMap: 128 opaque bytes, passed by value. A kernel
// parameter marked __grid_constant__ stays in the parameter space, where the
// TMA reads it by address.
struct __align__(64) TensorMap {
    unsigned long long opaque[16];
};

__device__ __forceinline__ unsigned int shared_address(const void* p) {
    return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}

// Given: Puzzle 36's mbarriers.
__device__ __forceinline__ void barrier_init(unsigned long long* bar, unsigned int count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(shared_address(bar)), "r"(count)
                 : "memory");
}

__device__ __forceinline__ void barrier_arrive(unsigned long long* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(shared_address(bar)) : "memory");
}

__device__ __forceinline__ void barrier_arrive_expect(unsigned long long* bar, unsigned int bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(shared_address(bar)),
                 "r"(bytes)
                 : "memory");
}

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

// Given: the TMA copies the box of `map` whose first element is at column
// `x`, row `y` of the matrix into shared memory at `to`, swizzled as the map
// says, and counts its bytes off `bar` as they land. Rows and columns past
// the matrix's edge arrive as zeros.
__device__ __forceinline__ void tma_load(void* to, const TensorMap* map, unsigned int x,
                                         unsigned int y, unsigned long long* bar) {
    asm volatile(
        "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
        " [%0], [%1, {%2, %3}], [%4];" ::"r"(shared_address(to)),
        "l"(reinterpret_cast<unsigned long long>(map)), "r"(x), "r"(y), "r"(shared_address(bar))
        : "memory");
}

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

// Given: d += a · b for the warpgroup's 64 x 128 tile over 16 values of k, a and b
// read by the tensor cores from shared memory through their descriptors.
__device__ __forceinline__ void wgmma_128(float (&d)[64], unsigned long long a_desc,
                                        unsigned long long b_desc) {
    asm volatile(
        "{\n .reg .pred accumulate;\n setp.ne.b32 accumulate, 1, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, "
        "%8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, "
        "%40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, "
        "%56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, accumulate, 1, 1, 0, 1;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
          "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
          "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
          "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
        : "l"(a_desc), "l"(b_desc));
}

// Given: d += a · b for the warpgroup's 64 x 256 tile over 16 values of k, a and b
// read by the tensor cores from shared memory through their descriptors.
__device__ __forceinline__ void wgmma_256(float (&d)[128], unsigned long long a_desc,
                                        unsigned long long b_desc) {
    asm volatile(
        "{\n .reg .pred accumulate;\n setp.ne.b32 accumulate, 1, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n256k16.f32.bf16.bf16 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, "
        "%8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, "
        "%40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, "
        "%56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, "
        "%88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, "
        "%104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, accumulate, 1, 1, 0, 1;\n}"
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]),
          "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
          "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]),
          "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
          "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]),
          "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
          "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]),
          "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
          "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]),
          "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
          "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]),
          "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
          "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]),
          "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
          "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]),
          "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
          "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]),
          "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
          "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]),
          "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
          "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]),
          "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
          "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]),
          "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
          "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]),
          "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
          "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]),
          "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
          "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]),
          "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
          "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]),
          "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
        : "l"(a_desc), "l"(b_desc));
}

// One warpgroup's accumulators: a 64 x BN tile of out, BN / 2 floats a thread.
#define ACC (BN / 2)

__device__ __forceinline__ void wgmma_tile(float (&acc)[ACC], unsigned long long a_desc,
                                           unsigned long long b_desc) {
#if BN == 256
    wgmma_256(acc, a_desc, b_desc);
#else
    wgmma_128(acc, a_desc, b_desc);
#endif
}

// Given: which tile of out this block computes: step 5's walk, taken by
// whole clusters (whose blocks sit side by side along n), each block then
// one of its cluster's CLUSTER neighbouring tiles.
__device__ __forceinline__ void block_tile(unsigned int rank, unsigned int& tile_row,
                                           unsigned int& tile_col) {
    unsigned int clusters_x = gridDim.x / CLUSTER;
    unsigned int id = blockIdx.y * clusters_x + blockIdx.x / CLUSTER;
    unsigned int per_group = GROUP * clusters_x;
    unsigned int first_row = id / per_group * GROUP;
    unsigned int left = gridDim.y - first_row;
    unsigned int rows = GROUP < left ? GROUP : left;
    tile_row = first_row + id % per_group % rows;
    tile_col = id % per_group / rows * CLUSTER + rank;
}

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

extern "C" __global__ void __cluster_dims__(CLUSTER, 1, 1) __launch_bounds__(THREADS, 1)
    gemm_cluster(bf16* out, const __grid_constant__ TensorMap a_map,
                 const __grid_constant__ TensorMap b_map, unsigned int size) {
    extern __shared__ unsigned char shared_raw[];
    // The 128-byte swizzle is computed on address bits: each tile starts on
    // a 1024-byte boundary (the spec asks for 1 KiB extra).
    unsigned int misalignment = shared_address(shared_raw) % 1024;
    bf16* a_tiles = reinterpret_cast<bf16*>(shared_raw + (misalignment ? 1024 - misalignment : 0));
    bf16* b_tiles = a_tiles + STAGES * A_TILE;
    __shared__ __align__(8) unsigned long long full[STAGES];
    __shared__ __align__(8) unsigned long long empty[STAGES];
    cg::cluster_group cluster = cg::this_cluster();
    unsigned int rank = cluster.block_rank();
    unsigned int tile_row, tile_col;
    block_tile(rank, tile_row, tile_col);
    unsigned int row0 = tile_row * BM;
    unsigned int col0 = tile_col * BN;
    unsigned int group = threadIdx.x / 128;
    unsigned int thread = threadIdx.x % 128;
    unsigned int tiles = size / BK;
    if (threadIdx.x == 0) {
        for (unsigned int s = 0; s < STAGES; s++) {
            // `full`: the producer's one arrival, plus the stage's bytes.
            // `empty`: one arrival from each consumer warpgroup of each
            // block of the cluster.
            barrier_init(&full[s], 1);
            barrier_init(&empty[s], CLUSTER * CONSUMERS);
        }
        // The copy engine updates `full` from outside the threads.
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    // No block may copy into another, or arrive on its barriers, before
    // that block's barriers are initialised.
    cluster.sync();
    if (group == 0) {
        // The producer: one thread issues every copy. The others stay to
        // the end: the cluster's last barrier counts every thread.
        if (thread == 0) {
            for (unsigned int t = 0; t < tiles; t++) {
                unsigned int s = t % STAGES, round = t / STAGES;
                // Every block's consumers are done with this stage, which
                // this producer's multicast is about to overwrite in all
                // of them.
                if (round > 0) {
                    barrier_wait_cluster(&empty[s], (round - 1) % 2);
                }
                // All of the stage's bytes land here: this block's b, its
                // own share of a and its neighbours' shares.
                barrier_arrive_expect(&full[s], STAGE_BYTES);
                tma_load_multicast(a_tiles + s * A_TILE + rank * A_SHARE * BK, &a_map, t * BK,
                                   row0 + rank * A_SHARE, &full[s], (1u << CLUSTER) - 1);
                for (unsigned int j = 0; j < BN / 64; j++) {
                    tma_load(b_tiles + s * B_TILE + j * BK * 64, &b_map, col0 + j * 64,
                             t * BK, &full[s]);
                }
            }
            // Wait for the last round of each stage to land: the bytes of
            // every copy into this block, its own and its neighbours'.
            for (unsigned int t = tiles > STAGES ? tiles - STAGES : 0; t < tiles; t++) {
                barrier_wait(&full[t % STAGES], t / STAGES % 2);
            }
        }
    } else {
        unsigned int consumer = group - 1;
        float acc[ACC] = {};
        for (unsigned int t = 0; t < tiles; t++) {
            unsigned int s = t % STAGES;
            const bf16* a_tile = a_tiles + s * A_TILE;
            const bf16* b_tile = b_tiles + s * B_TILE;
            // BEGIN PUZZLE (roughly 15 lines)
            // The TMA wrote the tiles through the async proxy, the path
            // wgmma reads by: the phase completing is all the ordering needed.
            barrier_wait(&full[s], t / STAGES % 2);
            wgmma_fence();
#pragma unroll
            for (unsigned int kk = 0; kk < BK / 16; kk++) {
                unsigned long long a_desc =
                    descriptor(a_tile + consumer * 64 * BK + kk * 16, 16, 1024);
                unsigned long long b_desc = descriptor(b_tile + kk * 16 * 64, BK * 128, 1024);
                wgmma_tile(acc, a_desc, b_desc);
            }
            wgmma_commit();
            // Tile t - 1's products are done: its stage can be refilled.
            wgmma_wait<1>();
            if (t > 0 && thread < CLUSTER) {
                // Thread r hands the stage back to block r's producer.
                barrier_arrive_in(&empty[(t - 1) % STAGES], thread);
            }
            // END PUZZLE
        }
        wgmma_wait<0>();
        // Step 4's epilogue: a 16-row band a warp, lane l holding rows
        // l / 4 and l / 4 + 8 at columns 2 (l % 4) and the next of each 8.
        unsigned int warp = thread / 32, lane = thread % 32;
        unsigned int row = row0 + consumer * 64 + warp * 16 + lane / 4;
#pragma unroll
        for (unsigned int j = 0; j < BN / 8; j++) {
            unsigned int col = col0 + j * 8 + lane % 4 * 2;
            *reinterpret_cast<__nv_bfloat162*>(&out[row * size + col]) =
                __floats2bfloat162_rn(acc[j * 4], acc[j * 4 + 1]);
            *reinterpret_cast<__nv_bfloat162*>(&out[(row + 8) * size + col]) =
                __floats2bfloat162_rn(acc[j * 4 + 2], acc[j * 4 + 3]);
        }
    }
    // No block may leave while a neighbour can still write into its shared
    // memory or arrive on its barriers.
    cluster.sync();
}
