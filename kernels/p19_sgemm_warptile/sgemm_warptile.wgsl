// Puzzle 19, step 5: warp tiling. Step 4 with a different map from
// invocations to outputs. The BM x BN workgroup tile is cut into WM x WN warp
// tiles, one per 32 consecutive invocations (a warp on NVIDIA GPUs, which run
// invocations 0-31, 32-63, ... of a workgroup together). Within a warp tile,
// the 32 lanes form a LANE_ROWS x LANE_COLS grid of TM x TN patches, a
// sub-tile; the warp repeats it WMITER times down and WNITER times across.
// No subgroup operation is needed: only the arrangement changes, so that the
// lanes of a warp read neighbouring vec4s of workgroup memory together.
// Sizes must be multiples of 4 (vec4 views of the matrices); TM and TN too.
const BM: u32 = 16u;
const BN: u32 = 32u;
const BK: u32 = 4u;
const WM: u32 = 16u;
const WN: u32 = 32u;
const WMITER: u32 = 1u;
const WNITER: u32 = 1u;
const TM: u32 = 4u;
const TN: u32 = 4u;
const WARP: u32 = 32u;
const THREADS: u32 = (BM / WM) * (BN / WN) * WARP;
// One sub-tile, and the lanes that cover it.
const SUB_M: u32 = WM / WMITER;
const SUB_N: u32 = WN / WNITER;
const LANE_ROWS: u32 = SUB_M / TM;
const LANE_COLS: u32 = SUB_N / TN;
const_assert LANE_ROWS * LANE_COLS == WARP;
// vec4s of each tile that one invocation carries (rounded up; the last pass may be partial).
const A_LOADS: u32 = (BM * BK / 4u + THREADS - 1u) / THREADS;
const B_LOADS: u32 = (BK * BN / 4u + THREADS - 1u) / THREADS;

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

struct Staged {
    a: array<vec4<f32>, A_LOADS>,
    b: array<vec4<f32>, B_LOADS>,
}

// Given: step 4's copy of the tiles at k0, global memory to registers...
fn load_tiles(p: Place, k0: u32) -> Staged {
    var s: Staged;
    for (var l = 0u; l < A_LOADS; l++) {
        let i = p.tid + l * THREADS;
        let r = i / (BK / 4u);
        let c = i % (BK / 4u) * 4u;
        s.a[l] = vec4<f32>(0.0);
        if (i < BM * BK / 4u && p.row0 + r < size && k0 + c < size) {
            s.a[l] = a[((p.row0 + r) * size + k0 + c) / 4u];
        }
    }
    for (var l = 0u; l < B_LOADS; l++) {
        let i = p.tid + l * THREADS;
        let r = i / (BN / 4u);
        let c = i % (BN / 4u);
        s.b[l] = vec4<f32>(0.0);
        if (i < BK * BN / 4u && k0 + r < size && p.col0 + c * 4u < size) {
            s.b[l] = b[((k0 + r) * size + p.col0) / 4u + c];
        }
    }
    return s;
}

// ...and registers to pair `pair` of the tiles, a transposed.
fn store_tiles(pair: u32, s: Staged, p: Place) {
    for (var l = 0u; l < A_LOADS; l++) {
        let i = p.tid + l * THREADS;
        let r = i / (BK / 4u);
        let c = i % (BK / 4u) * 4u;
        if (i < BM * BK / 4u) {
            a_tiles[pair][c][r / 4u][r % 4u] = s.a[l].x;
            a_tiles[pair][c + 1u][r / 4u][r % 4u] = s.a[l].y;
            a_tiles[pair][c + 2u][r / 4u][r % 4u] = s.a[l].z;
            a_tiles[pair][c + 3u][r / 4u][r % 4u] = s.a[l].w;
        }
    }
    for (var l = 0u; l < B_LOADS; l++) {
        let i = p.tid + l * THREADS;
        if (i < BK * BN / 4u) {
            b_tiles[pair][i / (BN / 4u)][i % (BN / 4u)] = s.b[l];
        }
    }
}

// Given: the multiply-adds over pair `pair` of the tiles. The invocation's
// rows are tr + wm * SUB_M + i (i < TM), its columns tc + wn * SUB_N + j (j < TN).
fn compute_tile(
    pair: u32,
    acc: ptr<function, array<array<vec4<f32>, WNITER * TN / 4u>, WMITER * TM>>,
    p: Place,
) {
    var a_reg: array<vec4<f32>, WMITER * TM / 4u>;
    var b_reg: array<vec4<f32>, WNITER * TN / 4u>;
    for (var k = 0u; k < BK; k++) {
        for (var wm = 0u; wm < WMITER; wm++) {
            for (var i = 0u; i < TM / 4u; i++) {
                a_reg[wm * TM / 4u + i] = a_tiles[pair][k][(p.tr + wm * SUB_M) / 4u + i];
            }
        }
        for (var wn = 0u; wn < WNITER; wn++) {
            for (var j = 0u; j < TN / 4u; j++) {
                b_reg[wn * TN / 4u + j] = b_tiles[pair][k][(p.tc + wn * SUB_N) / 4u + j];
            }
        }
        for (var i = 0u; i < WMITER * TM; i++) {
            let a_i = a_reg[i / 4u][i % 4u];
            for (var j = 0u; j < WNITER * TN / 4u; j++) {
                (*acc)[i][j] = fma(vec4<f32>(a_i), b_reg[j], (*acc)[i][j]);
            }
        }
    }
}

@compute @workgroup_size(THREADS)
fn sgemm_warptile(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_index) tid: u32,
) {
    var p = Place(wid.y * BM, wid.x * BN, 0u, 0u, tid);
    // BEGIN PUZZLE (roughly 8 lines)
    // Warps take warp tiles row by row: BN / WN of them per row.
    let warp = tid / WARP;
    let lane = tid % WARP;
    let warp_row = warp / (BN / WN);
    let warp_col = warp % (BN / WN);
    // Lanes take patches of the sub-tile the same way, LANE_COLS per row.
    let lane_row = lane / LANE_COLS;
    let lane_col = lane % LANE_COLS;
    p.tr = warp_row * WM + lane_row * TM;
    p.tc = warp_col * WN + lane_col * TN;
    // END PUZZLE
    var acc: array<array<vec4<f32>, WNITER * TN / 4u>, WMITER * TM>;
    let tiles = (size + BK - 1u) / BK;

    // Step 4's pipeline.
    store_tiles(0u, load_tiles(p, 0u), p);
    workgroupBarrier();
    for (var t = 0u; t < tiles; t++) {
        let now = t % 2u;
        let more = t + 1u < tiles;
        var next: Staged;
        if (more) {
            next = load_tiles(p, (t + 1u) * BK);
        }
        compute_tile(now, &acc, p);
        if (more) {
            store_tiles(1u - now, next, p);
        }
        workgroupBarrier();
    }
    // Each row of each patch goes out as TN / 4 vec4 stores.
    for (var i = 0u; i < WMITER * TM; i++) {
        for (var j = 0u; j < WNITER * TN / 4u; j++) {
            let row = p.row0 + p.tr + i / TM * SUB_M + i % TM;
            let col = p.col0 + p.tc + j * 4u / TN * SUB_N + j * 4u % TN;
            if (row < size && col < size) {
                out[(row * size + col) / 4u] = acc[i][j];
            }
        }
    }
}
