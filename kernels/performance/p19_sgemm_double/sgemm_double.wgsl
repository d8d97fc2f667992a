// Puzzle 19, step 4: double buffering. Step 3 waits for each tile to arrive
// before it computes, and computes before it loads the next. Here the
// workgroup tiles come in pairs: while the workgroup multiplies with one pair,
// the loads of the next tile are already on their way into registers, and
// land in the other pair afterwards. One barrier per tile instead of two.
// Sizes must be multiples of 4 (vec4 views of the matrices); TM and TN too.
const BM: u32 = 8u;
const BN: u32 = 8u;
const BK: u32 = 4u;
const TM: u32 = 4u;
const TN: u32 = 4u;
const THREADS: u32 = (BM / TM) * (BN / TN);
// vec4s of each tile that one invocation carries (rounded up; the last pass may be partial).
const A_LOADS: u32 = (BM * BK / 4u + THREADS - 1u) / THREADS;
const B_LOADS: u32 = (BK * BN / 4u + THREADS - 1u) / THREADS;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> size: u32;

// Two pairs of tiles, [0] and [1]; the a tiles transposed, as in step 3.
var<workgroup> a_tiles: array<array<array<vec4<f32>, BM / 4u>, BK>, 2>;
var<workgroup> b_tiles: array<array<array<vec4<f32>, BN / 4u>, BK>, 2>;

// Where one workgroup's tiles come from, and where this invocation's patch sits.
struct Place {
    row0: u32,
    col0: u32,
    tr: u32,
    tc: u32,
    tid: u32,
}

// The registers that carry one tile from global to workgroup memory.
struct Staged {
    a: array<vec4<f32>, A_LOADS>,
    b: array<vec4<f32>, B_LOADS>,
}

// Given: step 3's copy, split in two halves. The first issues this
// invocation's global loads of the tiles at k0 into registers...
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

// ...and the second stores them into pair `pair` of the tiles, a transposed.
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

// Given: step 3's multiply-adds over pair `pair` of the tiles.
fn compute_tile(pair: u32, acc: ptr<function, array<array<vec4<f32>, TN / 4u>, TM>>, p: Place) {
    var a_reg: array<vec4<f32>, TM / 4u>;
    var b_reg: array<vec4<f32>, TN / 4u>;
    for (var k = 0u; k < BK; k++) {
        for (var i = 0u; i < TM / 4u; i++) {
            a_reg[i] = a_tiles[pair][k][p.tr / 4u + i];
        }
        for (var j = 0u; j < TN / 4u; j++) {
            b_reg[j] = b_tiles[pair][k][p.tc / 4u + j];
        }
        // The components written out, so that no index into a vector varies.
        for (var i = 0u; i < TM / 4u; i++) {
            let av = a_reg[i];
            for (var j = 0u; j < TN / 4u; j++) {
                let bv = b_reg[j];
                (*acc)[4u * i][j] = fma(vec4<f32>(av.x), bv, (*acc)[4u * i][j]);
                (*acc)[4u * i + 1u][j] = fma(vec4<f32>(av.y), bv, (*acc)[4u * i + 1u][j]);
                (*acc)[4u * i + 2u][j] = fma(vec4<f32>(av.z), bv, (*acc)[4u * i + 2u][j]);
                (*acc)[4u * i + 3u][j] = fma(vec4<f32>(av.w), bv, (*acc)[4u * i + 3u][j]);
            }
        }
    }
}

@compute @workgroup_size(BN / TN, BM / TM)
fn sgemm_double(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) tid: u32,
) {
    let p = Place(wid.y * BM, wid.x * BN, lid.y * TM, lid.x * TN, tid);
    var acc: array<array<vec4<f32>, TN / 4u>, TM>;
    let tiles = (size + BK - 1u) / BK;

    // The first tile goes into pair 0 before the loop.
    store_tiles(0u, load_tiles(p, 0u), p);
    workgroupBarrier();
    // BEGIN PUZZLE (roughly 14 lines)
    for (var t = 0u; t < tiles; t++) {
        let now = t % 2u;
        // From the uniform `size`: every invocation takes the same branches.
        let more = t + 1u < tiles;
        // Issue the next tile's loads first; nothing waits for them until the
        // stores below, so they travel while the multiply-adds run.
        var next: Staged;
        if (more) {
            next = load_tiles(p, (t + 1u) * BK);
        }
        compute_tile(now, &acc, p);
        // The other pair was last read in pass t - 1, and every invocation
        // has passed the barrier at its end since: it is free.
        if (more) {
            store_tiles(1u - now, next, p);
        }
        // One barrier: the new pair is complete, and the old one no longer read.
        workgroupBarrier();
    }
    // END PUZZLE
    for (var i = 0u; i < TM; i++) {
        for (var j = 0u; j < TN / 4u; j++) {
            let row = p.row0 + p.tr + i;
            let col = p.col0 + p.tc + j * 4u;
            if (row < size && col < size) {
                out[(row * size + col) / 4u] = acc[i][j];
            }
        }
    }
}
