// Puzzle 18, step 4: step 3's look-back scan with the tile copied into shared
// memory by cp.async. The copies need no registers while they are in flight,
// so a block asks for twice step 3's data at once and the SM still fits six
// blocks; and the data waits out the look-back in shared memory, not in
// registers.
#include <cuda/atomic>
#include <cuda_pipeline_primitives.h>

#define TPB 256
// A tile is ROWS rows of TPB float4s (4 * ROWS * TPB floats): 32 KiB at 8.
#define ROWS 8
#define WARP 32
#define FULL_MASK 0xffffffffu
#define TILE_QUADS (ROWS * TPB)

// Step 3's status words: a flag in the upper half, a float's bits in the lower.
#define FLAG_INVALID 0ull
#define FLAG_AGGREGATE 1ull
#define FLAG_PREFIX 2ull

using StatusWord = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;

__device__ void publish(unsigned long long* status, unsigned int tile, unsigned long long flag, float value) {
    StatusWord(status[tile]).store((flag << 32) | __float_as_uint(value), cuda::memory_order_relaxed);
}

__device__ float lanes_sum(float4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

// The inclusive scan of one float4's elements, each plus `start`.
__device__ float4 lanes_scan(float4 v, float start) {
    float xy = v.x + v.y;
    return make_float4(start + v.x, start + xy, start + (xy + v.z), start + (xy + v.z + v.w));
}

// The float4 at index q; past the end of the data, zeros.
__device__ float4 load4(const float* a, unsigned int q, unsigned int size) {
    unsigned int e = 4 * q;
    if (e + 4 <= size) {
        return reinterpret_cast<const float4*>(a)[q];
    }
    return make_float4(e < size ? a[e] : 0.0f, e + 1 < size ? a[e + 1] : 0.0f,
                       e + 2 < size ? a[e + 2] : 0.0f, e + 3 < size ? a[e + 3] : 0.0f);
}

// Stores the float4 at index q, or the part of it before the end.
__device__ void store4(float* out, unsigned int q, float4 v, unsigned int size) {
    unsigned int e = 4 * q;
    if (e + 4 <= size) {
        reinterpret_cast<float4*>(out)[q] = v;
        return;
    }
    if (e < size) out[e] = v.x;
    if (e + 1 < size) out[e + 1] = v.y;
    if (e + 2 < size) out[e + 2] = v.z;
}

// Step 3's block-wide exclusive scan, one row at a time instead of a float4 of
// four: `before[r]` is the part of row r before this thread's vector, and
// `total[r]` the whole row. One call per block: one barrier is enough.
__device__ void scan_rows(const float (&sums)[ROWS], float (&before)[ROWS], float (&total)[ROWS]) {
    __shared__ float warp_sums[TPB / WARP][ROWS];
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;
#pragma unroll
    for (unsigned int r = 0; r < ROWS; r++) {
        float inclusive = sums[r];
#pragma unroll
        for (unsigned int d = 1; d < WARP; d *= 2) {
            float up = __shfl_up_sync(FULL_MASK, inclusive, d);
            if (lane >= d) {
                inclusive += up;
            }
        }
        if (lane == WARP - 1) {
            warp_sums[warp][r] = inclusive;
        }
        before[r] = inclusive - sums[r];
    }
    __syncthreads();
#pragma unroll
    for (unsigned int r = 0; r < ROWS; r++) {
        total[r] = 0.0f;
    }
    for (unsigned int w = 0; w < TPB / WARP; w++) {
#pragma unroll
        for (unsigned int r = 0; r < ROWS; r++) {
            float g = warp_sums[w][r];
            if (w < warp) {
                before[r] += g;
            }
            total[r] += g;
        }
    }
}

// Step 3's look-back, unchanged: run by warp 0, the sum of every element
// before the tile, in every lane.
__device__ float look_back(unsigned long long* status, unsigned int tile, unsigned int lane) {
    float exclusive = 0.0f;
    int nearest = static_cast<int>(tile) - 1;
    while (true) {
        int pred = nearest - static_cast<int>(lane);
        unsigned long long word = FLAG_PREFIX << 32;
        do {
            if (pred >= 0) {
                word = StatusWord(status[pred]).load(cuda::memory_order_relaxed);
            }
        } while (__any_sync(FULL_MASK, (word >> 32) == FLAG_INVALID));
        unsigned int prefixes = __ballot_sync(FULL_MASK, (word >> 32) == FLAG_PREFIX);
        unsigned int last = prefixes ? __ffs(prefixes) - 1 : WARP - 1;
        float value = (lane <= last) ? __uint_as_float(static_cast<unsigned int>(word)) : 0.0f;
        for (unsigned int d = WARP / 2; d > 0; d /= 2) {
            value += __shfl_xor_sync(FULL_MASK, value, d);
        }
        exclusive += value;
        if (prefixes != 0) {
            break;
        }
        nearest -= WARP;
    }
    return exclusive;
}

// Launch 1, given: every tile's status back to FLAG_INVALID, the counter to 0.
extern "C" __global__ void reset(unsigned int* status_words, unsigned int* counter, unsigned int tiles) {
    unsigned long long* status = reinterpret_cast<unsigned long long*>(status_words);
    unsigned int i = blockIdx.x * TPB + threadIdx.x;
    if (i < tiles) {
        status[i] = FLAG_INVALID << 32;
    }
    if (i == 0) {
        counter[0] = 0;
    }
}

// Launch 2: one tile per block, in a single pass over the data.
extern "C" __global__ void scan(float* out, const float* a, unsigned int* status_words, unsigned int* counter,
                                unsigned int size) {
    __shared__ float4 stage[ROWS][TPB];
    __shared__ unsigned int tile_index;
    __shared__ float tile_offset;
    unsigned long long* status = reinterpret_cast<unsigned long long*>(status_words);
    unsigned int lane = threadIdx.x % WARP;

    if (threadIdx.x == 0) {
        tile_index = atomicAdd(counter, 1u);
    }
    __syncthreads();
    unsigned int tile = tile_index;
    unsigned int q = tile * TILE_QUADS + threadIdx.x;

    // Thread t copies the t-th float4 of every row into stage[r][t]. A tile
    // that lies wholly inside the data is copied by cp.async, 16 bytes at a
    // time; the last, partial tile, by ordinary loads and stores.
    // BEGIN PUZZLE (roughly 12 lines)
    bool whole = 4 * (tile + 1) * TILE_QUADS <= size;
#pragma unroll
    for (unsigned int r = 0; r < ROWS; r++) {
        if (whole) {
            __pipeline_memcpy_async(&stage[r][threadIdx.x], reinterpret_cast<const float4*>(a) + q + r * TPB,
                                    sizeof(float4));
        } else {
            stage[r][threadIdx.x] = load4(a, q + r * TPB, size);
        }
    }
    // One batch of copies; wait for all of it. Each thread reads back only
    // the vectors it copied itself, so no barrier is needed.
    __pipeline_commit();
    __pipeline_wait_prior(0);
    // END PUZZLE

    float sums[ROWS], before[ROWS], total[ROWS];
#pragma unroll
    for (unsigned int r = 0; r < ROWS; r++) {
        sums[r] = lanes_sum(stage[r][threadIdx.x]);
    }
    scan_rows(sums, before, total);
    // Where each row starts in the tile, and the tile's sum.
    float row_start[ROWS];
    float aggregate = 0.0f;
#pragma unroll
    for (unsigned int r = 0; r < ROWS; r++) {
        row_start[r] = aggregate;
        aggregate += total[r];
    }

    // Step 3's look-back by warp 0.
    if (threadIdx.x < WARP) {
        float offset = 0.0f;
        if (tile > 0) {
            if (lane == 0) {
                publish(status, tile, FLAG_AGGREGATE, aggregate);
            }
            offset = look_back(status, tile, lane);
        }
        if (lane == 0) {
            publish(status, tile, FLAG_PREFIX, offset + aggregate);
            tile_offset = offset;
        }
    }
    __syncthreads();
    float carry = tile_offset;
    // The vectors are read from shared memory a second time, for the output.
#pragma unroll
    for (unsigned int r = 0; r < ROWS; r++) {
        store4(out, q + r * TPB, lanes_scan(stage[r][threadIdx.x], carry + row_start[r] + before[r]), size);
    }
}
