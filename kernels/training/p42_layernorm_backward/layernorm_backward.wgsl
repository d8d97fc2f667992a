// Puzzle 42: LayerNorm's backward pass, in two launches.
//
// row_gradients: a workgroup takes RPB consecutive rows. For each, it
// recomputes the row's mean and reciprocal standard deviation, writes dx,
// and adds the row's share of dgamma and dbeta (dy * xhat and dy, for each
// column) into private arrays. At the end it writes its sums for every
// column, one row of partial_gamma and of partial_beta.
// column_sums: SPLIT invocations a column add the workgroups' partial sums.
const TPB: u32 = 32u;
const VECS: u32 = 1u;
const RPB: u32 = 4u;
const COL_TPB: u32 = 8u;
const SPLIT: u32 = 2u;
const EPS: f32 = 1e-5;

// Rows seen as vec4s (cols is a multiple of 4); the column sums' view is by element.
@group(0) @binding(0) var<storage, read_write> dx: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> dgamma: array<f32>;
@group(0) @binding(2) var<storage, read_write> dbeta: array<f32>;
@group(0) @binding(3) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> dy: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read_write> partial_gamma: array<f32>;
@group(0) @binding(7) var<storage, read_write> partial_beta: array<f32>;
@group(0) @binding(8) var<uniform> rows: u32;
@group(0) @binding(9) var<uniform> cols: u32;
@group(0) @binding(10) var<uniform> blocks: u32;

var<workgroup> slots: array<vec2<f32>, TPB>;

// The workgroup's sums of two values per invocation, returned to every one.
fn workgroup_sum2(t: u32, v: vec2<f32>) -> vec2<f32> {
    slots[t] = v;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            slots[t] = slots[t] + slots[t + half];
        }
        workgroupBarrier();
    }
    let s = slots[0];
    workgroupBarrier();
    return s;
}

fn sum4(a: vec4<f32>) -> f32 {
    return (a.x + a.y) + (a.z + a.w);
}

@compute @workgroup_size(TPB)
fn row_gradients(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = cols / 4u;
    let t = lid.x;
    // This invocation's columns: vec4 t + k * TPB of every row. Past the end
    // of a row, zeros, which add nothing to any sum below.
    var g: array<vec4<f32>, VECS>;
    var dg: array<vec4<f32>, VECS>;
    var db: array<vec4<f32>, VECS>;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        g[k] = vec4(0.0);
        if (q < quads) {
            g[k] = gamma[q];
        }
        dg[k] = vec4(0.0);
        db[k] = vec4(0.0);
    }
    let first = wid.x * RPB;
    let last = min(first + RPB, rows);
    for (var r = first; r < last; r++) {
        let start = r * quads;
        var xv: array<vec4<f32>, VECS>;
        var dyv: array<vec4<f32>, VECS>;
        for (var k = 0u; k < VECS; k++) {
            let q = t + k * TPB;
            xv[k] = vec4(0.0);
            dyv[k] = vec4(0.0);
            if (q < quads) {
                xv[k] = x[start + q];
                dyv[k] = dy[start + q];
            }
        }

        // BEGIN PUZZLE (roughly 28 lines)
        // Pass 1 through the workgroup: the row's sums of x and of gamma * dy.
        var part = vec2(0.0);
        for (var k = 0u; k < VECS; k++) {
            part += vec2(sum4(xv[k]), dot(g[k], dyv[k]));
        }
        var sums = workgroup_sum2(t, part);
        let mean = sums.x / f32(cols);
        let mean_g = sums.y / f32(cols);
        // Pass 2: the squared deviations, and gamma * dy times the
        // deviations. Past the end of the row the lanes are not deviations:
        // leave them out. xv keeps the deviations.
        part = vec2(0.0);
        for (var k = 0u; k < VECS; k++) {
            if (t + k * TPB < quads) {
                xv[k] = xv[k] - vec4(mean);
                part += vec2(dot(xv[k], xv[k]), dot(g[k] * dyv[k], xv[k]));
            }
        }
        sums = workgroup_sum2(t, part);
        let rstd = inverseSqrt(sums.x / f32(cols) + EPS);
        // mean(gamma * dy * xhat), with xhat = deviation * rstd.
        let mean_gx = sums.y / f32(cols) * rstd;
        for (var k = 0u; k < VECS; k++) {
            let q = t + k * TPB;
            if (q < quads) {
                let xhat = xv[k] * rstd;
                dx[start + q] = rstd * (g[k] * dyv[k] - vec4(mean_g) - xhat * mean_gx);
                dg[k] += dyv[k] * xhat;
                db[k] += dyv[k];
            }
        }
        // END PUZZLE
    }
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            for (var lane = 0u; lane < 4u; lane++) {
                partial_gamma[wid.x * cols + 4u * q + lane] = dg[k][lane];
                partial_beta[wid.x * cols + 4u * q + lane] = db[k][lane];
            }
        }
    }
}

var<workgroup> sums: array<array<vec2<f32>, COL_TPB>, SPLIT>;

// COL_TPB columns a workgroup, SPLIT invocations a column: invocation y adds
// partial rows y, y + SPLIT, …, and the SPLIT sums meet in workgroup memory.
// Consecutive invocations read consecutive columns of each partial row.
@compute @workgroup_size(COL_TPB, SPLIT)
fn column_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let j = wid.x * COL_TPB + lid.x;
    var s = vec2(0.0);
    if (j < cols) {
        for (var b = lid.y; b < blocks; b += SPLIT) {
            s += vec2(partial_gamma[b * cols + j], partial_beta[b * cols + j]);
        }
    }
    sums[lid.y][lid.x] = s;
    workgroupBarrier();
    if (lid.y == 0u && j < cols) {
        for (var y = 1u; y < SPLIT; y++) {
            s += sums[y][lid.x];
        }
        dgamma[j] = s.x;
        dbeta[j] = s.y;
    }
}
