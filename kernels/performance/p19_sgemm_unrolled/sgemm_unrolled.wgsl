// Puzzle 19, step 7 (WGSL only): no loop left for the driver to unroll.
// wgpu guards every WGSL loop against running forever: naga gives each one a
// counter and an extra exit. Step 6's k loop has eight iterations, but with
// that exit in it the Vulkan driver appears to keep it a loop (the chapter
// has the measurements), so every k pays for the counter, the test and tile
// indices computed at run time. Here the k loop is gone: `outer` is one k's
// outer product, and `tile` calls it eight times with k written out. The
// tile loop is unrolled by two as well, so that `tile` is called with the
// pair of shared tiles written out too: once the driver inlines the calls,
// every index into the tiles is a constant plus a value computed once per
// invocation. The sums are step 6's, fields of one struct passed by pointer.
// Sizes must be multiples of 4 (vec4 views of the matrices).
const BM: u32 = 128u;
const BN: u32 = 128u;
// Fixed: `tile` is written out for k = 0 to 7...
const BK: u32 = 8u;
const_assert BK == 8u;
// ...and the sums for 8 x 8 outputs.
const TM: u32 = 8u;
const TN: u32 = 8u;
const THREADS: u32 = (BM / TM) * (BN / TN);
const WARP: u32 = 32u;
const LANE_ROWS: u32 = 4u;
const LANE_COLS: u32 = 8u;
const SUB_M: u32 = LANE_ROWS * 4u;
const SUB_N: u32 = LANE_COLS * 4u;
const WM: u32 = SUB_M * 2u;
const WN: u32 = SUB_N * 2u;
const_assert BM % WM == 0u && BN % WN == 0u;
// One vec4 of each tile per invocation per tile, at most.
const_assert BM * BK / 4u <= THREADS && BK * BN / 4u <= THREADS;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> a_tiles: array<array<array<vec4<f32>, BM / 4u>, BK>, 2>;
var<workgroup> b_tiles: array<array<array<vec4<f32>, BN / 4u>, BK>, 2>;

// Where one workgroup's tiles come from, and where this invocation's first patch sits.
struct Place {
    row0: u32,
    col0: u32,
    tr: u32,
    tc: u32,
    tid: u32,
}

// Step 6's sixteen sums: row r of the outputs is c{r}0 (left patch) and c{r}1 (right).
struct Sums {
    c00: vec4<f32>,
    c01: vec4<f32>,
    c10: vec4<f32>,
    c11: vec4<f32>,
    c20: vec4<f32>,
    c21: vec4<f32>,
    c30: vec4<f32>,
    c31: vec4<f32>,
    c40: vec4<f32>,
    c41: vec4<f32>,
    c50: vec4<f32>,
    c51: vec4<f32>,
    c60: vec4<f32>,
    c61: vec4<f32>,
    c70: vec4<f32>,
    c71: vec4<f32>,
}

// Given: the vec4 of a that this invocation copies for the tile at k0 (zeros past the edges)...
fn load_a(p: Place, k0: u32) -> vec4<f32> {
    let r = p.tid / (BK / 4u);
    let c = p.tid % (BK / 4u) * 4u;
    var v = vec4<f32>(0.0);
    if (p.tid < BM * BK / 4u && p.row0 + r < size && k0 + c < size) {
        v = a[((p.row0 + r) * size + k0 + c) / 4u];
    }
    return v;
}

// ...the vec4 of b...
fn load_b(p: Place, k0: u32) -> vec4<f32> {
    let r = p.tid / (BN / 4u);
    let c = p.tid % (BN / 4u);
    var v = vec4<f32>(0.0);
    if (p.tid < BK * BN / 4u && k0 + r < size && p.col0 + c * 4u < size) {
        v = b[((k0 + r) * size + p.col0) / 4u + c];
    }
    return v;
}

// ...and both into pair `pair` of the tiles, a transposed.
fn store_tiles(pair: u32, p: Place, va: vec4<f32>, vb: vec4<f32>) {
    let r = p.tid / (BK / 4u);
    let c = p.tid % (BK / 4u) * 4u;
    if (p.tid < BM * BK / 4u) {
        a_tiles[pair][c][r / 4u][r % 4u] = va.x;
        a_tiles[pair][c + 1u][r / 4u][r % 4u] = va.y;
        a_tiles[pair][c + 2u][r / 4u][r % 4u] = va.z;
        a_tiles[pair][c + 3u][r / 4u][r % 4u] = va.w;
    }
    if (p.tid < BK * BN / 4u) {
        b_tiles[pair][p.tid / (BN / 4u)][p.tid % (BN / 4u)] = vb;
    }
}

// Given: one row of the invocation's outputs, `dr` rows below its first, as two vec4s a sub-tile apart.
fn store_out(p: Place, dr: u32, left: vec4<f32>, right: vec4<f32>) {
    let row = p.row0 + p.tr + dr;
    let col = p.col0 + p.tc;
    if (row < size && col < size) {
        out[(row * size + col) / 4u] = left;
    }
    if (row < size && col + SUB_N < size) {
        out[(row * size + col + SUB_N) / 4u] = right;
    }
}

// One k of the tile pair `now`: step 6's loop body, with k an argument.
fn outer(now: u32, k: u32, p: Place, s: ptr<function, Sums>) {
    // BEGIN PUZZLE (roughly 20 lines)
    let a0 = a_tiles[now][k][p.tr / 4u];
    let a1 = a_tiles[now][k][(p.tr + SUB_M) / 4u];
    let b0 = b_tiles[now][k][p.tc / 4u];
    let b1 = b_tiles[now][k][(p.tc + SUB_N) / 4u];
    (*s).c00 = fma(vec4<f32>(a0.x), b0, (*s).c00);
    (*s).c01 = fma(vec4<f32>(a0.x), b1, (*s).c01);
    (*s).c10 = fma(vec4<f32>(a0.y), b0, (*s).c10);
    (*s).c11 = fma(vec4<f32>(a0.y), b1, (*s).c11);
    (*s).c20 = fma(vec4<f32>(a0.z), b0, (*s).c20);
    (*s).c21 = fma(vec4<f32>(a0.z), b1, (*s).c21);
    (*s).c30 = fma(vec4<f32>(a0.w), b0, (*s).c30);
    (*s).c31 = fma(vec4<f32>(a0.w), b1, (*s).c31);
    (*s).c40 = fma(vec4<f32>(a1.x), b0, (*s).c40);
    (*s).c41 = fma(vec4<f32>(a1.x), b1, (*s).c41);
    (*s).c50 = fma(vec4<f32>(a1.y), b0, (*s).c50);
    (*s).c51 = fma(vec4<f32>(a1.y), b1, (*s).c51);
    (*s).c60 = fma(vec4<f32>(a1.z), b0, (*s).c60);
    (*s).c61 = fma(vec4<f32>(a1.z), b1, (*s).c61);
    (*s).c70 = fma(vec4<f32>(a1.w), b0, (*s).c70);
    (*s).c71 = fma(vec4<f32>(a1.w), b1, (*s).c71);
    // END PUZZLE
}

// Given: one pass of step 4's pipeline over tile t, held in pair `now`: the
// next tile travels through registers into the other pair while this one is
// used. `tiles` and t are the same in every invocation, so the barrier is
// reached by all of them or by none.
fn tile(now: u32, t: u32, tiles: u32, p: Place, s: ptr<function, Sums>) {
    let more = t + 1u < tiles;
    var next_a = vec4<f32>(0.0);
    var next_b = vec4<f32>(0.0);
    if (more) {
        next_a = load_a(p, (t + 1u) * BK);
        next_b = load_b(p, (t + 1u) * BK);
    }
    outer(now, 0u, p, s);
    outer(now, 1u, p, s);
    outer(now, 2u, p, s);
    outer(now, 3u, p, s);
    outer(now, 4u, p, s);
    outer(now, 5u, p, s);
    outer(now, 6u, p, s);
    outer(now, 7u, p, s);
    if (more) {
        store_tiles(1u - now, p, next_a, next_b);
    }
    workgroupBarrier();
}

@compute @workgroup_size(THREADS)
fn sgemm_unrolled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) tid: u32,
) {
    // Step 5's map from invocations to patches.
    let warp = tid / WARP;
    let lane = tid % WARP;
    let p = Place(
        wid.y * BM,
        wid.x * BN,
        warp / (BN / WN) * WM + lane / LANE_COLS * 4u,
        warp % (BN / WN) * WN + lane % LANE_COLS * 4u,
        tid,
    );
    var s = Sums();
    let tiles = (size + BK - 1u) / BK;
    store_tiles(0u, p, load_a(p, 0u), load_b(p, 0u));
    workgroupBarrier();
    // Two tiles a trip: the even one in pair 0, the odd one in pair 1.
    for (var t = 0u; t < tiles; t += 2u) {
        tile(0u, t, tiles, p, &s);
        if (t + 1u < tiles) {
            tile(1u, t + 1u, tiles, p, &s);
        }
    }
    store_out(p, 0u * SUB_M + 0u, s.c00, s.c01);
    store_out(p, 0u * SUB_M + 1u, s.c10, s.c11);
    store_out(p, 0u * SUB_M + 2u, s.c20, s.c21);
    store_out(p, 0u * SUB_M + 3u, s.c30, s.c31);
    store_out(p, 1u * SUB_M + 0u, s.c40, s.c41);
    store_out(p, 1u * SUB_M + 1u, s.c50, s.c51);
    store_out(p, 1u * SUB_M + 2u, s.c60, s.c61);
    store_out(p, 1u * SUB_M + 3u, s.c70, s.c71);
}
