// Puzzle 19, step 6 (WGSL only): step 5 with every register named. Each
// invocation owns 8 x 8 outputs as 2 x 2 patches of 4 x 4, exactly as in step
// 5, but its sums are sixteen vec4 variables c00 .. c71 instead of an array,
// and the operands of one k are four vec4 lets. Nothing is indexed by a loop
// variable, so nothing has to be kept in memory: a driver that leaves
// function-scope arrays in memory (as NVIDIA's Vulkan driver did with step 5's,
// see the chapter) has nothing left to leave.
// Sizes must be multiples of 4 (vec4 views of the matrices).
const BM: u32 = 64u;
const BN: u32 = 64u;
const BK: u32 = 4u;
// Fixed: the names below spell out 8 x 8 outputs.
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
// One vec4 of each tile per invocation per pass, at most.
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

@compute @workgroup_size(THREADS)
fn sgemm_named(
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
    // Row r of the outputs is c{r}0 (left patch) and c{r}1 (right patch);
    // rows 4 to 7 lie a sub-tile (SUB_M rows) below rows 0 to 3.
    var c00 = vec4<f32>(0.0);
    var c01 = vec4<f32>(0.0);
    var c10 = vec4<f32>(0.0);
    var c11 = vec4<f32>(0.0);
    var c20 = vec4<f32>(0.0);
    var c21 = vec4<f32>(0.0);
    var c30 = vec4<f32>(0.0);
    var c31 = vec4<f32>(0.0);
    var c40 = vec4<f32>(0.0);
    var c41 = vec4<f32>(0.0);
    var c50 = vec4<f32>(0.0);
    var c51 = vec4<f32>(0.0);
    var c60 = vec4<f32>(0.0);
    var c61 = vec4<f32>(0.0);
    var c70 = vec4<f32>(0.0);
    var c71 = vec4<f32>(0.0);
    let tiles = (size + BK - 1u) / BK;

    // Step 4's pipeline: tile t + 1 travels through registers while tile t is used.
    store_tiles(0u, p, load_a(p, 0u), load_b(p, 0u));
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let now = t % 2u;
        let more = t + 1u < tiles;
        var next_a = vec4<f32>(0.0);
        var next_b = vec4<f32>(0.0);
        if (more) {
            next_a = load_a(p, (t + 1u) * BK);
            next_b = load_b(p, (t + 1u) * BK);
        }
        for (var k = 0u; k < BK; k++) {
            // BEGIN PUZZLE (roughly 20 lines)
            // Two vec4s of a's column k (rows tr.. and tr + SUB_M..), two of b's row k.
            let a0 = a_tiles[now][k][p.tr / 4u];
            let a1 = a_tiles[now][k][(p.tr + SUB_M) / 4u];
            let b0 = b_tiles[now][k][p.tc / 4u];
            let b1 = b_tiles[now][k][(p.tc + SUB_N) / 4u];
            // The outer product, one output row (two vec4s) at a time.
            c00 = fma(vec4<f32>(a0.x), b0, c00);
            c01 = fma(vec4<f32>(a0.x), b1, c01);
            c10 = fma(vec4<f32>(a0.y), b0, c10);
            c11 = fma(vec4<f32>(a0.y), b1, c11);
            c20 = fma(vec4<f32>(a0.z), b0, c20);
            c21 = fma(vec4<f32>(a0.z), b1, c21);
            c30 = fma(vec4<f32>(a0.w), b0, c30);
            c31 = fma(vec4<f32>(a0.w), b1, c31);
            c40 = fma(vec4<f32>(a1.x), b0, c40);
            c41 = fma(vec4<f32>(a1.x), b1, c41);
            c50 = fma(vec4<f32>(a1.y), b0, c50);
            c51 = fma(vec4<f32>(a1.y), b1, c51);
            c60 = fma(vec4<f32>(a1.z), b0, c60);
            c61 = fma(vec4<f32>(a1.z), b1, c61);
            c70 = fma(vec4<f32>(a1.w), b0, c70);
            c71 = fma(vec4<f32>(a1.w), b1, c71);
            // END PUZZLE
        }
        if (more) {
            store_tiles(1u - now, p, next_a, next_b);
        }
        workgroupBarrier();
    }
    store_out(p, 0u * SUB_M + 0u, c00, c01);
    store_out(p, 0u * SUB_M + 1u, c10, c11);
    store_out(p, 0u * SUB_M + 2u, c20, c21);
    store_out(p, 0u * SUB_M + 3u, c30, c31);
    store_out(p, 1u * SUB_M + 0u, c40, c41);
    store_out(p, 1u * SUB_M + 1u, c50, c51);
    store_out(p, 1u * SUB_M + 2u, c60, c61);
    store_out(p, 1u * SUB_M + 3u, c70, c71);
}
