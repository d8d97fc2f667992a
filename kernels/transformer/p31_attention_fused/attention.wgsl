// Puzzle 31, step 2: attention fused, FlashAttention's scheme in FP32. A
// workgroup owns BR query rows of one head and walks the keys BC at a time.
// For each tile of keys it computes the BR x BC scores in workgroup memory,
// updates each row's running maximum and sum (the online softmax of Puzzle
// 28), rescales its output rows by how far the maximum moved, and adds the
// tile's probabilities times the tile of v. The SEQ x SEQ matrix never
// exists: a tile of it lives in workgroup memory, then is gone.
//
// Each invocation computes a 4 x 4 block of scores (rows ty*4.., keys tx*4..)
// and a 4 x (4 * DIM / BC) block of the output (rows ty*4.., columns
// tx*4 + g*BC). SEQ must be a multiple of BR and of BC, and DIM of BC.
const DIM: u32 = 8u;
const BR: u32 = 8u;
const BC: u32 = 8u;
const THREADS: u32 = (BR / 4u) * (BC / 4u);
const GROUPS: u32 = DIM / BC;
// log2(e): scores are kept in base-2 units so that exp becomes exp2.
const LOG2E: f32 = 1.4426950408889634;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> q: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> k: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> seq: u32;

// q's tile transposed (qt[d][r]), one tile of k transposed (kt[d][c]) and
// then of v (v[c][d]) in the same place, and the scores, then
// probabilities, transposed (pt[c][r]).
var<workgroup> qt: array<f32, DIM * BR>;
var<workgroup> kv: array<f32, DIM * BC>;
var<workgroup> pt: array<f32, BC * BR>;
// Each row's running maximum (base 2) and sum, and the factor its output is
// multiplied by after the latest tile.
var<workgroup> row_max: array<f32, BR>;
var<workgroup> row_sum: array<f32, BR>;
var<workgroup> rescale: array<f32, BR>;

// Four consecutive floats of workgroup memory as one vector.
fn qt4(i: u32) -> vec4<f32> {
    return vec4(qt[i], qt[i + 1u], qt[i + 2u], qt[i + 3u]);
}
fn kv4(i: u32) -> vec4<f32> {
    return vec4(kv[i], kv[i + 1u], kv[i + 2u], kv[i + 3u]);
}
fn pt4(i: u32) -> vec4<f32> {
    return vec4(pt[i], pt[i + 1u], pt[i + 2u], pt[i + 3u]);
}

@compute @workgroup_size(THREADS)
fn attention(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let t = lid.x;
    let ty = t / (BC / 4u);
    let tx = t % (BC / 4u);
    // In vec4s: a head is seq * DIM / 4 of them, a row DIM / 4.
    let head = wid.y * seq * (DIM / 4u);
    let row0 = wid.x * BR;

    // q's tile; consecutive invocations take consecutive rows.
    for (var e = t; e < BR * DIM / 4u; e += THREADS) {
        let r = e % BR;
        let d = e / BR * 4u;
        let x = q[head + (row0 + r) * (DIM / 4u) + d / 4u];
        qt[d * BR + r] = x.x;
        qt[(d + 1u) * BR + r] = x.y;
        qt[(d + 2u) * BR + r] = x.z;
        qt[(d + 3u) * BR + r] = x.w;
    }

    var acc: array<array<vec4<f32>, GROUPS>, 4>;
    for (var r = t; r < BR; r += THREADS) {
        row_max[r] = -3.4e38;
        row_sum[r] = 0.0;
    }

    for (var key0 = 0u; key0 < seq; key0 += BC) {
        // k's tile, transposed.
        for (var e = t; e < BC * DIM / 4u; e += THREADS) {
            let c = e % BC;
            let d = e / BC * 4u;
            let x = k[head + (key0 + c) * (DIM / 4u) + d / 4u];
            kv[d * BC + c] = x.x;
            kv[(d + 1u) * BC + c] = x.y;
            kv[(d + 2u) * BC + c] = x.z;
            kv[(d + 3u) * BC + c] = x.w;
        }
        workgroupBarrier();

        // The 4 x 4 scores of this invocation, kept transposed in pt.
        var s: array<vec4<f32>, 4>; // s[j] holds key j's scores for rows ty*4..
        for (var d = 0u; d < DIM; d++) {
            let a = qt4(d * BR + ty * 4u);
            let b = kv4(d * BC + tx * 4u);
            s[0] += a * b.x;
            s[1] += a * b.y;
            s[2] += a * b.z;
            s[3] += a * b.w;
        }
        // Scaled once, by 1 / sqrt(DIM) and by log2(e) for exp2: the dot
        // products of quarters are exact, so this is each score's only rounding.
        let scale = LOG2E * inverseSqrt(f32(DIM));
        for (var j = 0u; j < 4u; j++) {
            let base = (tx * 4u + j) * BR + ty * 4u;
            let scaled = s[j] * scale;
            pt[base] = scaled.x;
            pt[base + 1u] = scaled.y;
            pt[base + 2u] = scaled.z;
            pt[base + 3u] = scaled.w;
        }
        workgroupBarrier();

        // The online softmax of row r over this tile, a row an invocation.
        for (var r = t; r < BR; r += THREADS) {
            // BEGIN PUZZLE (roughly 14 lines)
            var tile_max = -3.4e38;
            for (var c = 0u; c < BC; c++) {
                tile_max = max(tile_max, pt[c * BR + r]);
            }
            let new_max = max(row_max[r], tile_max);
            let shrink = exp2(row_max[r] - new_max);
            var tile_sum = 0.0;
            for (var c = 0u; c < BC; c++) {
                let p = exp2(pt[c * BR + r] - new_max);
                pt[c * BR + r] = p;
                tile_sum += p;
            }
            row_sum[r] = row_sum[r] * shrink + tile_sum;
            row_max[r] = new_max;
            rescale[r] = shrink;
            // END PUZZLE
        }
        // Meanwhile everyone loads v's tile where k's was: the scores are done.
        for (var e = t; e < BC * DIM / 4u; e += THREADS) {
            let x = v[head + key0 * (DIM / 4u) + e];
            kv[e * 4u] = x.x;
            kv[e * 4u + 1u] = x.y;
            kv[e * 4u + 2u] = x.z;
            kv[e * 4u + 3u] = x.w;
        }
        workgroupBarrier();

        // The output rows, rescaled to the new maximum, plus P times v.
        for (var i = 0u; i < 4u; i++) {
            let f = rescale[ty * 4u + i];
            for (var g = 0u; g < GROUPS; g++) {
                acc[i][g] *= f;
            }
        }
        for (var c = 0u; c < BC; c++) {
            let p = pt4(c * BR + ty * 4u);
            for (var g = 0u; g < GROUPS; g++) {
                let x = kv4(c * DIM + g * BC + tx * 4u);
                acc[0][g] += p.x * x;
                acc[1][g] += p.y * x;
                acc[2][g] += p.z * x;
                acc[3][g] += p.w * x;
            }
        }
        workgroupBarrier();
    }

    for (var i = 0u; i < 4u; i++) {
        let r = ty * 4u + i;
        let inv = 1.0 / row_sum[r];
        for (var g = 0u; g < GROUPS; g++) {
            out[head + (row0 + r) * (DIM / 4u) + (g * BC + tx * 4u) / 4u] = acc[i][g] * inv;
        }
    }
}
