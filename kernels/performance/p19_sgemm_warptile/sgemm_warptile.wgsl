// Puzzle 19, step 5: warp tiling. Step 4 with a different map from
// invocations to outputs. WGSL has no warps, but NVIDIA GPUs run invocations
// 0-31, 32-63, ... of a workgroup together as one, so a group of 32
// consecutive invocations is a warp there. Its 32 lanes form a LANE_ROWS x
// LANE_COLS grid of 4 x 4 patches, a sub-tile; the warp repeats that sub-tile
// WMITER times down and WNITER times across, which makes its warp tile
// WM x WN, and the warps tile the BM x BN workgroup tile. No subgroup
// operation is needed: only the arrangement changes, so that the lanes of a
// warp read neighbouring vec4s of workgroup memory together.
// Sizes must be multiples of 4 (vec4 views of the matrices); TM and TN too.
const BM: u32 = 16u;
const BN: u32 = 32u;
const BK: u32 = 4u;
const TM: u32 = 4u;
const TN: u32 = 4u;
const THREADS: u32 = (BM / TM) * (BN / TN);
const WARP: u32 = 32u;
// 8 lanes side by side read 8 neighbouring vec4s of b, 128 bytes: one pass
// of the 32 banks. The 4 rows of lanes read 64 bytes of a.
const LANE_ROWS: u32 = 4u;
const LANE_COLS: u32 = 8u;
// An invocation's TM x TN outputs are WMITER x WNITER patches of 4 x 4...
const WMITER: u32 = TM / 4u;
const WNITER: u32 = TN / 4u;
// ...spaced one sub-tile apart, in a warp tile of WM x WN.
const SUB_M: u32 = LANE_ROWS * 4u;
const SUB_N: u32 = LANE_COLS * 4u;
const WM: u32 = SUB_M * WMITER;
const WN: u32 = SUB_N * WNITER;
const_assert LANE_ROWS * LANE_COLS == WARP;
const_assert TM % 4u == 0u && TN % 4u == 0u;
const_assert BM % WM == 0u && BN % WN == 0u;
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

// Given: the multiply-adds over pair `pair` of the tiles. Output row i of the
// invocation is tile row tr + (i / 4) * SUB_M + i % 4; vec4 j of its sums
// holds tile columns tc + j * SUB_N to tc + j * SUB_N + 3.
fn compute_tile(pair: u32, acc: ptr<function, array<array<vec4<f32>, WNITER>, TM>>, p: Place) {
    var a_reg: array<vec4<f32>, WMITER>;
    var b_reg: array<vec4<f32>, WNITER>;
    for (var k = 0u; k < BK; k++) {
        // One vec4 per patch, a sub-tile apart.
        for (var wm = 0u; wm < WMITER; wm++) {
            a_reg[wm] = a_tiles[pair][k][(p.tr + wm * SUB_M) / 4u];
        }
        for (var wn = 0u; wn < WNITER; wn++) {
            b_reg[wn] = b_tiles[pair][k][(p.tc + wn * SUB_N) / 4u];
        }
        // The components written out, so that no index into a vector varies.
        for (var wm = 0u; wm < WMITER; wm++) {
            let av = a_reg[wm];
            for (var wn = 0u; wn < WNITER; wn++) {
                let bv = b_reg[wn];
                (*acc)[wm * 4u][wn] = fma(vec4<f32>(av.x), bv, (*acc)[wm * 4u][wn]);
                (*acc)[wm * 4u + 1u][wn] = fma(vec4<f32>(av.y), bv, (*acc)[wm * 4u + 1u][wn]);
                (*acc)[wm * 4u + 2u][wn] = fma(vec4<f32>(av.z), bv, (*acc)[wm * 4u + 2u][wn]);
                (*acc)[wm * 4u + 3u][wn] = fma(vec4<f32>(av.w), bv, (*acc)[wm * 4u + 3u][wn]);
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
    // Warps take warp tiles row by row, BN / WN of them per row.
    let warp = tid / WARP;
    let lane = tid % WARP;
    let warp_row = warp / (BN / WN);
    let warp_col = warp % (BN / WN);
    // Lanes take patches of the sub-tile the same way, LANE_COLS per row.
    let lane_row = lane / LANE_COLS;
    let lane_col = lane % LANE_COLS;
    p.tr = warp_row * WM + lane_row * 4u;
    p.tc = warp_col * WN + lane_col * 4u;
    // END PUZZLE
    var acc: array<array<vec4<f32>, WNITER>, TM>;
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
    // Each row of each patch goes out as one vec4 store.
    for (var i = 0u; i < TM; i++) {
        for (var j = 0u; j < WNITER; j++) {
            let row = p.row0 + p.tr + i / 4u * SUB_M + i % 4u;
            let col = p.col0 + p.tc + j * SUB_N;
            if (row < size && col < size) {
                out[(row * size + col) / 4u] = acc[i][j];
            }
        }
    }
}
