// Experiment (scan_configs.sh): Puzzle 18 step 3's look-back scan with knobs,
// to find what holds it below the copy roof. Every knob at its first value is
// the book's step 3.
//   ROWS     float4s per thread (4: a tile of 16 * TPB floats)
//   COUNTER  1: tiles numbered by an atomic counter; 0: by blockIdx.x
//   STREAM   1: loads and stores marked as streaming (evict first)
//   MINB     __launch_bounds__'s minimum blocks per multiprocessor (0: none)
//   PERSIST  1: BLOCKS blocks loop over tiles, taking the next tile's index
//            while the current one loads
//   ASYNC    1: the tile is copied to shared memory by cp.async (no registers
//            held while the loads are in flight), read from there twice
//   REG_ROWS with ASYNC: this many more rows a tile, loaded into registers
#include <cuda/atomic>
#include <cuda_pipeline_primitives.h>

#ifndef TPB
#define TPB 256
#endif
#ifndef ROWS
#define ROWS 4
#endif
#ifndef COUNTER
#define COUNTER 1
#endif
#ifndef STREAM
#define STREAM 0
#endif
#ifndef MINB
#define MINB 0
#endif
#ifndef PERSIST
#define PERSIST 0
#endif
#ifndef ASYNC
#define ASYNC 0
#endif
#ifndef REG_ROWS
#define REG_ROWS 0
#endif
// Rows in all: with ASYNC, ROWS of them staged in shared memory and REG_ROWS
// more loaded into registers, so that a tile can hold more than shared memory
// alone allows.
#define ALL_ROWS (ROWS + REG_ROWS)
static_assert(ASYNC || REG_ROWS == 0, "REG_ROWS goes with ASYNC");
#define WARP 32
#define FULL_MASK 0xffffffffu
#define TILE_QUADS (ALL_ROWS * TPB)

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

__device__ float4 lanes_scan(float4 v, float start) {
    float xy = v.x + v.y;
    return make_float4(start + v.x, start + xy, start + (xy + v.z), start + (xy + v.z + v.w));
}

__device__ float4 load4(const float* a, unsigned int q, unsigned int size) {
    unsigned int e = 4 * q;
    if (e + 4 <= size) {
#if STREAM
        return __ldcs(reinterpret_cast<const float4*>(a) + q);
#else
        return reinterpret_cast<const float4*>(a)[q];
#endif
    }
    return make_float4(e < size ? a[e] : 0.0f, e + 1 < size ? a[e + 1] : 0.0f,
                       e + 2 < size ? a[e + 2] : 0.0f, e + 3 < size ? a[e + 3] : 0.0f);
}

__device__ void store4(float* out, unsigned int q, float4 v, unsigned int size) {
    unsigned int e = 4 * q;
    if (e + 4 <= size) {
#if STREAM
        __stcs(reinterpret_cast<float4*>(out) + q, v);
#else
        reinterpret_cast<float4*>(out)[q] = v;
#endif
        return;
    }
    if (e < size) out[e] = v.x;
    if (e + 1 < size) out[e + 1] = v.y;
    if (e + 2 < size) out[e + 2] = v.z;
}

// The block-wide exclusive scan of ALL_ROWS rows at once; row totals in `total`.
// The caller separates two calls with a barrier (the slots are reused).
__device__ void scan_rows(const float (&s)[ALL_ROWS], float (&before)[ALL_ROWS], float (&total)[ALL_ROWS]) {
    __shared__ float warp_sums[TPB / WARP][ALL_ROWS];
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;
#pragma unroll
    for (int r = 0; r < ALL_ROWS; r++) {
        float inclusive = s[r];
#pragma unroll
        for (unsigned int d = 1; d < WARP; d *= 2) {
            float up = __shfl_up_sync(FULL_MASK, inclusive, d);
            if (lane >= d) inclusive += up;
        }
        if (lane == WARP - 1) warp_sums[warp][r] = inclusive;
        before[r] = inclusive - s[r];
    }
    __syncthreads();
#pragma unroll
    for (int r = 0; r < ALL_ROWS; r++) total[r] = 0.0f;
    for (unsigned int w = 0; w < TPB / WARP; w++) {
#pragma unroll
        for (int r = 0; r < ALL_ROWS; r++) {
            float g = warp_sums[w][r];
            if (w < warp) before[r] += g;
            total[r] += g;
        }
    }
}

__device__ float look_back(unsigned long long* status, unsigned int tile, unsigned int lane) {
    float exclusive = 0.0f;
    // BEGIN PUZZLE (the book's step 3)
    int nearest = static_cast<int>(tile) - 1;
    while (true) {
        int pred = nearest - static_cast<int>(lane);
        unsigned long long word = FLAG_PREFIX << 32;
        do {
            if (pred >= 0) word = StatusWord(status[pred]).load(cuda::memory_order_relaxed);
        } while (__any_sync(FULL_MASK, (word >> 32) == FLAG_INVALID));
        unsigned int prefixes = __ballot_sync(FULL_MASK, (word >> 32) == FLAG_PREFIX);
        unsigned int last = prefixes ? __ffs(prefixes) - 1 : WARP - 1;
        float value = (lane <= last) ? __uint_as_float(static_cast<unsigned int>(word)) : 0.0f;
        for (unsigned int d = WARP / 2; d > 0; d /= 2) value += __shfl_xor_sync(FULL_MASK, value, d);
        exclusive += value;
        if (prefixes != 0) break;
        nearest -= WARP;
    }
    // END PUZZLE
    return exclusive;
}

extern "C" __global__ void reset(unsigned int* status_words, unsigned int* counter, unsigned int tiles) {
    unsigned long long* status = reinterpret_cast<unsigned long long*>(status_words);
    unsigned int i = blockIdx.x * TPB + threadIdx.x;
    if (i < tiles) status[i] = FLAG_INVALID << 32;
    if (i == 0) counter[0] = 0;
}

// One tile: load, scan, look back, store. `tile_offset` is the block's slot
// for warp 0's result.
__device__ void scan_tile(float* out, const float* a, unsigned long long* status, unsigned int tile,
                          unsigned int size, float* tile_offset) {
    unsigned int lane = threadIdx.x % WARP;
    unsigned int q = tile * TILE_QUADS + threadIdx.x;
    float s[ALL_ROWS], before[ALL_ROWS], total[ALL_ROWS];
#if ASYNC
    __shared__ float4 stage[ROWS][TPB];
    bool whole = 4 * (tile + 1) * TILE_QUADS <= size;
#pragma unroll
    for (int r = 0; r < ROWS; r++) {
        if (whole) {
            __pipeline_memcpy_async(&stage[r][threadIdx.x], reinterpret_cast<const float4*>(a) + q + r * TPB, 16);
        } else {
            stage[r][threadIdx.x] = load4(a, q + r * TPB, size);
        }
    }
    __pipeline_commit();
#if REG_ROWS
    float4 v[REG_ROWS];
#pragma unroll
    for (int r = 0; r < REG_ROWS; r++) v[r] = load4(a, q + (ROWS + r) * TPB, size);
#pragma unroll
    for (int r = 0; r < REG_ROWS; r++) s[ROWS + r] = lanes_sum(v[r]);
#endif
    __pipeline_wait_prior(0);
    // Each thread reads back only what it copied itself: no barrier needed.
#pragma unroll
    for (int r = 0; r < ROWS; r++) s[r] = lanes_sum(stage[r][threadIdx.x]);
#else
    float4 v[ROWS];
#pragma unroll
    for (int r = 0; r < ROWS; r++) v[r] = load4(a, q + r * TPB, size);
#pragma unroll
    for (int r = 0; r < ROWS; r++) s[r] = lanes_sum(v[r]);
#endif
    scan_rows(s, before, total);
    float row_start[ALL_ROWS];
    float aggregate = 0.0f;
#pragma unroll
    for (int r = 0; r < ALL_ROWS; r++) {
        row_start[r] = aggregate;
        aggregate += total[r];
    }
    if (threadIdx.x < WARP) {
        float offset = 0.0f;
        if (tile > 0) {
            if (lane == 0) publish(status, tile, FLAG_AGGREGATE, aggregate);
            offset = look_back(status, tile, lane);
        }
        if (lane == 0) {
            publish(status, tile, FLAG_PREFIX, offset + aggregate);
            *tile_offset = offset;
        }
    }
    __syncthreads();
    float carry = *tile_offset;
#pragma unroll
    for (int r = 0; r < ALL_ROWS; r++) {
#if ASYNC && REG_ROWS
        float4 x = r < ROWS ? stage[r][threadIdx.x] : v[r - ROWS];
#elif ASYNC
        float4 x = stage[r][threadIdx.x];
#else
        float4 x = v[r];
#endif
        store4(out, q + r * TPB, lanes_scan(x, carry + row_start[r] + before[r]), size);
    }
}

extern "C" __global__ void
#if MINB
__launch_bounds__(TPB, MINB)
#endif
scan(float* out, const float* a, unsigned int* status_words, unsigned int* counter, unsigned int size) {
    __shared__ unsigned int tile_slot[2];
    __shared__ float tile_offset;
    unsigned long long* status = reinterpret_cast<unsigned long long*>(status_words);
    unsigned int tiles = (size + 4 * TILE_QUADS - 1) / (4 * TILE_QUADS);
#if PERSIST
    if (threadIdx.x == 0) tile_slot[0] = atomicAdd(counter, 1u);
    __syncthreads();
    for (unsigned int it = 0;; it++) {
        unsigned int tile = tile_slot[it % 2];
        if (tile >= tiles) break;
        // The next index arrives while this tile loads; a block always
        // finishes its current tile before its next, so the smallest
        // unfinished tile is always some block's current one.
        if (threadIdx.x == 0) tile_slot[(it + 1) % 2] = atomicAdd(counter, 1u);
        scan_tile(out, a, status, tile, size, &tile_offset);
        __syncthreads();
    }
#else
#if COUNTER
    if (threadIdx.x == 0) tile_slot[0] = atomicAdd(counter, 1u);
    __syncthreads();
    unsigned int tile = tile_slot[0];
#else
    unsigned int tile = blockIdx.x;
#endif
    (void)tiles;
    scan_tile(out, a, status, tile, size, &tile_offset);
#endif
}
