// Puzzle 29, step 1: LayerNorm of each row, one workgroup per row, the row
// read once into a private array (VECS vec4s an invocation, as in Puzzle 28's
// step 4). Each invocation finds the count, mean and squared deviations of
// its own values; the workgroup combines the invocations' groups (given),
// and every invocation writes (x - mean) / sqrt(variance + EPS) * gamma + beta.
const TPB: u32 = 32u;
const VECS: u32 = 1u;
const EPS: f32 = 1e-5;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> beta: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> cols: u32;

// A group of values: how many, their mean, and the sum of their squared
// deviations from it (the variance is m2 / n).
struct Moments {
    n: f32,
    mean: f32,
    m2: f32,
}

var<workgroup> slots: array<Moments, TPB>;

// Two groups as one (Chan, Golub and LeVeque): the mean moves towards the
// other group's by its share of the count, and the squared deviations gain
// the gap between the two means.
fn combine(a: Moments, b: Moments) -> Moments {
    let n = a.n + b.n;
    if (n == 0.0) {
        return a;
    }
    let gap = b.mean - a.mean;
    let share = b.n / n;
    return Moments(n, a.mean + gap * share, a.m2 + b.m2 + gap * gap * a.n * share);
}

// The workgroup's moments, returned to every invocation: a tree in
// workgroup memory, then everyone reads the root.
fn workgroup_moments(t: u32, m: Moments) -> Moments {
    slots[t] = m;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            slots[t] = combine(slots[t], slots[t + half]);
        }
        workgroupBarrier();
    }
    let all = slots[0];
    workgroupBarrier();
    return all;
}

@compute @workgroup_size(TPB)
fn layernorm(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = cols / 4u;
    let start = wid.x * quads;
    let t = lid.x;

    // The thread's vec4s of the row, kept in registers from the one read;
    // the row's moments (count, mean, m2) over the workgroup, and the scale
    // 1 / √(variance + EPS) that the given loop below normalizes with.
    var v: array<vec4<f32>, VECS>;
    var row = Moments(0.0, 0.0, 0.0);
    var scale = 0.0;
    // BEGIN PUZZLE (roughly 18 lines)
    // The thread's values are one group, all in registers: their mean from
    // their sum, then their squared deviations from it. Exact, and no chain
    // of updates; the workgroup joins the threads' groups with `combine`.
    var sum = 0.0;
    var count = 0.0;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            v[k] = a[start + q];
            sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
            count += 4.0;
        }
    }
    let mean = select(0.0, sum / count, count > 0.0);
    var m2 = 0.0;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            let d = v[k] - vec4(mean);
            m2 += (d.x * d.x + d.y * d.y) + (d.z * d.z + d.w * d.w);
        }
    }
    let m = Moments(count, mean, m2);
    row = workgroup_moments(t, m);
    scale = inverseSqrt(row.m2 / row.n + EPS);
    // END PUZZLE
    // Given: each value normalized, scaled by gamma and shifted by beta.
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            out[start + q] = (v[k] - vec4(row.mean)) * scale * gamma[q] + beta[q];
        }
    }
}
