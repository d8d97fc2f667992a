// Puzzle 40: a tensor-parallel MLP layer, out = gelu(x · W1) · W2, on
// `ranks` GPUs. Rank r holds W1's r-th slice of columns (w1, dim × hid)
// and W2's r-th slice of rows (w2, hid × dim), and the whole input x
// (rows × dim). Its share of the output is z = gelu(x · w1) · w2; the
// layer's output is the sum of every rank's z, which an all-reduce leaves
// on every rank. What the four versions of the puzzle share is here.
#include <cuda/atomic>
#include "peers.cuh"

// Tiles of the matrix products: TILE x TILE outputs a block, a thread each.
#define TILE 16
// sqrt(2 / pi), for GELU's tanh form.
#define GELU_K 0.7978845608f

using SystemCounter = cuda::atomic_ref<unsigned int, cuda::thread_scope_system>;

// The kernels take their peer tables as `const __grid_constant__`, and the
// helpers by reference: a table is then read where the launch put it. A
// table passed by value and indexed by a rank known only at run time is
// first copied to the thread's local memory, and NVRTC 12.9 gave two such
// tables of one kernel the same local slot: after the sums had copied `z`'s
// table there, the next chunk's wait read `ready`'s entries from it, got
// `z`'s addresses, and waited on the wrong words. The CPU checker found it.

__device__ float gelu(float v) {
    return 0.5f * v * (1.0f + tanhf(GELU_K * (v + 0.044715f * v * v * v)));
}

// One TILE x TILE tile of c = a · b (row-major; a is m x k, b is k x n),
// the tile at tile row `tr` and tile column `tc`: Puzzle 14's shared-memory
// tiles, with `apply` run on each result before it is stored.
template <typename Apply>
__device__ void gemm_tile(float* c, const float* a, const float* b, unsigned int m,
                          unsigned int n, unsigned int k, unsigned int tr, unsigned int tc,
                          Apply apply) {
    __shared__ float a_tile[TILE][TILE];
    __shared__ float b_tile[TILE][TILE];
    unsigned int ty = threadIdx.x / TILE;
    unsigned int tx = threadIdx.x % TILE;
    unsigned int row = tr * TILE + ty;
    unsigned int col = tc * TILE + tx;
    float acc = 0.0f;
    for (unsigned int t = 0; t < k; t += TILE) {
        a_tile[ty][tx] = row < m && t + tx < k ? a[row * k + t + tx] : 0.0f;
        b_tile[ty][tx] = t + ty < k && col < n ? b[(t + ty) * n + col] : 0.0f;
        __syncthreads();
        for (unsigned int j = 0; j < TILE; ++j) {
            acc += a_tile[ty][j] * b_tile[j][tx];
        }
        __syncthreads();
    }
    if (row < m && col < n) {
        c[row * n + col] = apply(acc);
    }
}

// The first product, h = gelu(x · w1): rows x hid, a tile a block.
extern "C" __global__ void up(float* h, const float* x, const float* w1, unsigned int rows,
                              unsigned int dim, unsigned int hid) {
    unsigned int tile_cols = (hid + TILE - 1) / TILE;
    gemm_tile(h, x, w1, rows, hid, dim, blockIdx.x / tile_cols, blockIdx.x % tile_cols,
              [](float v) { return gelu(v); });
}

// The second, this rank's share of the output: z = h · w2, rows x dim.
extern "C" __global__ void down(float* z, const float* h, const float* w2, unsigned int rows,
                                unsigned int dim, unsigned int hid) {
    unsigned int tile_cols = (dim + TILE - 1) / TILE;
    gemm_tile(z, h, w2, rows, dim, hid, blockIdx.x / tile_cols, blockIdx.x % tile_cols,
              [](float v) { return v; });
}

// out[i] = the sum over ranks of z.rank[p][i], for i in first .. end - 1,
// shared among `workers` blocks of which this is number `worker`: 16 bytes
// a load where the range allows (Puzzle 39's `combine`, over every rank).
__device__ void sum_ranks(float* out, const Peers<const float>& z, unsigned int ranks,
                          unsigned int first, unsigned int end, unsigned int worker,
                          unsigned int workers) {
    unsigned int stride = workers * blockDim.x;
    unsigned int start = worker * blockDim.x + threadIdx.x;
    // Up to the first multiple of 4, one at a time; then quads; then the tail.
    unsigned int head = min((first + 3) / 4 * 4, end);
    unsigned int quads = (end - head) / 4;
    for (unsigned int i = first + start; i < head; i += stride) {
        float sum = 0.0f;
        for (unsigned int p = 0; p < ranks; ++p) {
            sum += z.rank[p][i];
        }
        out[i] = sum;
    }
    for (unsigned int q = start; q < quads; q += stride) {
        float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
        for (unsigned int p = 0; p < ranks; ++p) {
            float4 v = reinterpret_cast<const float4*>(z.rank[p] + head)[q];
            sum.x += v.x;
            sum.y += v.y;
            sum.z += v.z;
            sum.w += v.w;
        }
        reinterpret_cast<float4*>(out + head)[q] = sum;
    }
    for (unsigned int i = head + 4 * quads + start; i < end; i += stride) {
        float sum = 0.0f;
        for (unsigned int p = 0; p < ranks; ++p) {
            sum += z.rank[p][i];
        }
        out[i] = sum;
    }
}

// Every block of every rank meets here for the `round`-th time. Each block
// adds one to every rank's count (in that rank's memory), after a barrier
// so that all its threads' reads and writes come first; then waits until
// its own rank's count shows every block of every rank at this round.
// Counts only grow, so no count is ever reset.
__device__ void all_blocks_meet(const Peers<unsigned int>& arrived, unsigned int rank,
                                unsigned int ranks, unsigned int round) {
    __syncthreads();
    if (threadIdx.x == 0) {
        for (unsigned int p = 0; p < ranks; ++p) {
            SystemCounter(*arrived.rank[p]).fetch_add(1, cuda::memory_order_release);
        }
        SystemCounter mine(*arrived.rank[rank]);
        while (mine.load(cuda::memory_order_acquire) < round * gridDim.x * ranks) {
        }
    }
    __syncthreads();
}

// The one-shot all-reduce of Puzzle 38, over the whole of z: meet (every
// rank's z is written), sum, meet again (no rank's next run overwrites a z
// that another rank is still reading). `runs` counts this block's runs.
extern "C" __global__ void all_reduce(float* out, const __grid_constant__ Peers<const float> z,
                                      const __grid_constant__ Peers<unsigned int> arrived,
                                      unsigned int* runs,
                                      unsigned int rank, unsigned int ranks, unsigned int size) {
    __shared__ unsigned int run;
    if (threadIdx.x == 0) {
        run = ++runs[blockIdx.x];
    }
    __syncthreads();
    all_blocks_meet(arrived, rank, ranks, 2 * run - 1);
    sum_ranks(out, z, ranks, 0, size, blockIdx.x, gridDim.x);
    all_blocks_meet(arrived, rank, ranks, 2 * run);
}
