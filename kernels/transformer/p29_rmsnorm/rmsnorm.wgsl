// Puzzle 29, step 4: RMSNorm of each row, one workgroup per row, the row
// read once into a private array (VECS vec4s an invocation, as in step 1).
// No mean, no Welford: each invocation adds up the squares of its values, the
// workgroup adds the invocations' sums (given), and every invocation writes
// x / sqrt(mean square + EPS) * gamma.
const TPB: u32 = 32u;
const VECS: u32 = 1u;
const EPS: f32 = 1e-5;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> gamma: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> cols: u32;

var<workgroup> partial: array<f32, TPB>;

// The workgroup's total, returned to every invocation: a tree in workgroup
// memory, then everyone reads the root.
fn workgroup_sum(t: u32, s: f32) -> f32 {
    partial[t] = s;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            partial[t] += partial[t + half];
        }
        workgroupBarrier();
    }
    let all = partial[0];
    workgroupBarrier();
    return all;
}

@compute @workgroup_size(TPB)
fn rmsnorm(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = cols / 4u;
    let start = wid.x * quads;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 16 lines)
    var v: array<vec4<f32>, VECS>;
    var squares = 0.0;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            v[k] = a[start + q];
            squares += dot(v[k], v[k]);
        }
    }
    let scale = inverseSqrt(workgroup_sum(t, squares) / f32(cols) + EPS);
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            out[start + q] = v[k] * scale * gamma[q];
        }
    }
    // END PUZZLE
}
