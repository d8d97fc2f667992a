// Puzzle 31, step 1: attention in three kernels, the way the formula reads.
// `scores` writes S = q kᵀ / √DIM for every head, the whole SEQ x SEQ matrix,
// to global memory; `softmax_rows` turns each row of S into probabilities in
// place; `weighted_sum` multiplies them by v. Both products are tiled through
// workgroup memory as in Puzzle 19's step 1.
const TILE: u32 = 4u;
const DIM: u32 = 8u;
const TPB: u32 = 32u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read_write> s: array<f32>;
@group(0) @binding(2) var<storage, read> q: array<f32>;
@group(0) @binding(3) var<storage, read> k: array<f32>;
@group(0) @binding(4) var<storage, read> v: array<f32>;
@group(0) @binding(5) var<uniform> seq: u32;

var<workgroup> left: array<array<f32, TILE>, TILE>;
var<workgroup> right: array<array<f32, TILE>, TILE>;
var<workgroup> slots: array<f32, TPB>;

// S[h][i][j] = (q[h][i] . k[h][j]) / sqrt(DIM): workgroup (x, y, h) computes
// a TILE x TILE tile of head h's scores, rows y, columns (keys) x.
@compute @workgroup_size(TILE, TILE)
fn scores(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let head = wid.z * seq * DIM;
    let tx = lid.x;
    let ty = lid.y;
    let i = wid.y * TILE + ty;
    // BEGIN PUZZLE (roughly 12 lines)
    let j_row = wid.x * TILE + ty; // the key this invocation loads
    var acc = 0.0;
    for (var d0 = 0u; d0 < DIM; d0 += TILE) {
        left[ty][tx] = q[head + i * DIM + d0 + tx];
        right[ty][tx] = k[head + j_row * DIM + d0 + tx];
        workgroupBarrier();
        for (var d = 0u; d < TILE; d++) {
            acc += left[ty][d] * right[tx][d];
        }
        workgroupBarrier();
    }
    let j = wid.x * TILE + tx;
    s[wid.z * seq * seq + i * seq + j] = acc * inverseSqrt(f32(DIM));
    // END PUZZLE
}

// The workgroup's maximum or sum of one value an invocation.
fn workgroup_reduce(t: u32, value: f32, take_max: bool) -> f32 {
    slots[t] = value;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            let other = slots[t + half];
            slots[t] = select(slots[t] + other, max(slots[t], other), take_max);
        }
        workgroupBarrier();
    }
    let all = slots[0];
    workgroupBarrier();
    return all;
}

// Each row of S, in place: exp(s - max) / sum, one workgroup a row (Puzzle
// 28's three passes); workgroup (i, h) takes row i of head h.
@compute @workgroup_size(TPB)
fn softmax_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let t = lid.x;
    let row = (wid.y * seq + wid.x) * seq;
    var m = -3.4e38;
    for (var j = t; j < seq; j += TPB) {
        m = max(m, s[row + j]);
    }
    m = workgroup_reduce(t, m, true);
    var total = 0.0;
    for (var j = t; j < seq; j += TPB) {
        total += exp(s[row + j] - m);
    }
    total = workgroup_reduce(t, total, false);
    for (var j = t; j < seq; j += TPB) {
        s[row + j] = exp(s[row + j] - m) / total;
    }
}

// out[h][i][d] = sum_j P[h][i][j] v[h][j][d]: workgroup (x, y, h) computes a
// TILE x TILE tile of head h's output, rows y, columns x.
@compute @workgroup_size(TILE, TILE)
fn weighted_sum(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let probs = wid.z * seq * seq;
    let head = wid.z * seq * DIM;
    let tx = lid.x;
    let ty = lid.y;
    let i = wid.y * TILE + ty;
    let d = wid.x * TILE + tx;
    var acc = 0.0;
    for (var j0 = 0u; j0 < seq; j0 += TILE) {
        left[ty][tx] = s[probs + i * seq + j0 + tx];
        right[ty][tx] = v[head + (j0 + ty) * DIM + d];
        workgroupBarrier();
        for (var j = 0u; j < TILE; j++) {
            acc += left[ty][j] * right[j][tx];
        }
        workgroupBarrier();
    }
    out[head + i * DIM + d] = acc;
}
