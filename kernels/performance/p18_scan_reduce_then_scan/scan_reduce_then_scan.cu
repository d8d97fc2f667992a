// Puzzle 18, step 1: an inclusive scan of any length in three launches over a
// fixed grid. Each block owns a run of whole tiles (its chunk): launch 1 sums
// every chunk, launch 2 turns the sums into offsets, launch 3 scans every chunk
// again, starting from its offset.
#define TPB 64
#define WARP 32
#define FULL_MASK 0xffffffffu
// A tile is four rows of TPB float4s (16 * TPB floats). Thread t holds the
// t-th float4 of every row, so each of its four loads is coalesced.
#define TILE_QUADS (4 * TPB)
// Launch 2 has a single block, and a narrow one: the partial sums are few.
#define TPB_PARTIALS 32

// One slot per warp, shared by the kernels' calls to scan_rows.
__shared__ float4 warp_sums[TPB / WARP];

__device__ float4 add4(float4 p, float4 q) {
    return make_float4(p.x + q.x, p.y + q.y, p.z + q.z, p.w + q.w);
}

__device__ float lanes_sum(float4 v) {
    return (v.x + v.y) + (v.z + v.w);
}

// The inclusive scan of one float4's elements, each plus `start`.
__device__ float4 lanes_scan(float4 v, float start) {
    float xy = v.x + v.y;
    return make_float4(start + v.x, start + xy, start + (xy + v.z), start + (xy + v.z + v.w));
}

// The float4 at index q; past the end of the data, zeros. Only the last
// float4 can be ragged (size not a multiple of 4); it is read element by element.
__device__ float4 load4(const float* a, unsigned int q, unsigned int size) {
    unsigned int e = 4 * q;
    if (e + 4 <= size) {
        // cudaMalloc'd memory is aligned to 256 bytes, so every float4 is aligned.
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

// Given: a block-wide exclusive scan of `s` (blocks of whole warps), the four rows at once (one per
// component). A warp scans in registers with shuffles, one float4 per warp goes
// through shared memory, and every thread adds up the slots before its own.
// Sets `total` to the rows' sums. The second barrier lets the next call
// overwrite the slots.
__device__ float4 scan_rows(float4 s, float4& total) {
    unsigned int lane = threadIdx.x % WARP;
    unsigned int warp = threadIdx.x / WARP;
    float4 inclusive = s;
    for (unsigned int d = 1; d < WARP; d *= 2) {
        float4 up = make_float4(__shfl_up_sync(FULL_MASK, inclusive.x, d), __shfl_up_sync(FULL_MASK, inclusive.y, d),
                                __shfl_up_sync(FULL_MASK, inclusive.z, d), __shfl_up_sync(FULL_MASK, inclusive.w, d));
        if (lane >= d) {
            inclusive = add4(inclusive, up);
        }
    }
    if (lane == WARP - 1) {
        warp_sums[warp] = inclusive;
    }
    // The lane before's inclusive value is this lane's exclusive one.
    float4 before = make_float4(__shfl_up_sync(FULL_MASK, inclusive.x, 1), __shfl_up_sync(FULL_MASK, inclusive.y, 1),
                                __shfl_up_sync(FULL_MASK, inclusive.z, 1), __shfl_up_sync(FULL_MASK, inclusive.w, 1));
    if (lane == 0) {
        before = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    }
    __syncthreads();
    total = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (unsigned int w = 0; w < blockDim.x / WARP; w++) {
        float4 g = warp_sums[w];
        if (w < warp) {
            before = add4(before, g);
        }
        total = add4(total, g);
    }
    __syncthreads();
    return before;
}

// The tiles of a block's chunk: tiles * b / blocks up to tiles * (b + 1) /
// blocks, so that chunks differ by one tile at most.
__device__ void chunk(unsigned int size, unsigned int& first, unsigned int& last) {
    unsigned int tiles = ((size + 3) / 4 + TILE_QUADS - 1) / TILE_QUADS;
    first = blockIdx.x * tiles / gridDim.x;
    last = (blockIdx.x + 1) * tiles / gridDim.x;
}

// Launch 1, given: the sum of each block's chunk, as in puzzle 17.
extern "C" __global__ void chunk_sums(float* partials, const float* a, unsigned int size) {
    unsigned int first, last;
    chunk(size, first, last);
    float4 sums = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (unsigned int tile = first; tile < last; tile++) {
        unsigned int q = tile * TILE_QUADS + threadIdx.x;
        // Four loads that do not depend on each other, all in flight at once.
        float4 v0 = load4(a, q, size);
        float4 v1 = load4(a, q + TPB, size);
        float4 v2 = load4(a, q + 2 * TPB, size);
        float4 v3 = load4(a, q + 3 * TPB, size);
        sums = add4(sums, make_float4(lanes_sum(v0), lanes_sum(v1), lanes_sum(v2), lanes_sum(v3)));
    }
    // Puzzle 17's block sum: warp shuffles, then one slot per warp.
    float value = lanes_sum(sums);
    for (unsigned int offset = WARP / 2; offset > 0; offset /= 2) {
        value += __shfl_down_sync(FULL_MASK, value, offset);
    }
    if (threadIdx.x % WARP == 0) {
        warp_sums[threadIdx.x / WARP] = make_float4(value, 0.0f, 0.0f, 0.0f);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        float total = 0.0f;
        for (unsigned int w = 0; w < TPB / WARP; w++) {
            total += warp_sums[w].x;
        }
        partials[blockIdx.x] = total;
    }
}

// Launch 2, given: one block replaces the `count` sums by their exclusive
// scan, TPB_PARTIALS at a time, carrying the total from one batch to the next.
extern "C" __global__ void scan_partials(float* partials, unsigned int count) {
    float carry = 0.0f;
    for (unsigned int base = 0; base < count; base += TPB_PARTIALS) {
        unsigned int j = base + threadIdx.x;
        float v = (j < count) ? partials[j] : 0.0f;
        // Only the first component is used.
        float4 total;
        float4 before = scan_rows(make_float4(v, 0.0f, 0.0f, 0.0f), total);
        if (j < count) {
            partials[j] = carry + before.x;
        }
        carry += total.x;
    }
}

// Launch 3: each block scans its chunk again, tile by tile, starting from its
// offset.
extern "C" __global__ void scan_chunks(float* out, const float* a, const float* partials, unsigned int size) {
    unsigned int first, last;
    chunk(size, first, last);
    // The sum of every element before this chunk.
    float carry = partials[blockIdx.x];
    for (unsigned int tile = first; tile < last; tile++) {
        unsigned int q = tile * TILE_QUADS + threadIdx.x;
        float4 v0 = load4(a, q, size);
        float4 v1 = load4(a, q + TPB, size);
        float4 v2 = load4(a, q + 2 * TPB, size);
        float4 v3 = load4(a, q + 3 * TPB, size);
        float4 s = make_float4(lanes_sum(v0), lanes_sum(v1), lanes_sum(v2), lanes_sum(v3));
        float4 total;
        float4 before = scan_rows(s, total);

        // BEGIN PUZZLE (roughly 9 lines)
        // Row r of the tile starts after rows 0 to r - 1; within it, this
        // thread's float4 starts after the row's float4s before it.
        float row1 = total.x;
        float row2 = row1 + total.y;
        float row3 = row2 + total.z;
        store4(out, q, lanes_scan(v0, carry + before.x), size);
        store4(out, q + TPB, lanes_scan(v1, carry + row1 + before.y), size);
        store4(out, q + 2 * TPB, lanes_scan(v2, carry + row2 + before.z), size);
        store4(out, q + 3 * TPB, lanes_scan(v3, carry + row3 + before.w), size);
        // The next tile starts after this whole one.
        carry += row3 + total.w;
        // END PUZZLE
    }
}
