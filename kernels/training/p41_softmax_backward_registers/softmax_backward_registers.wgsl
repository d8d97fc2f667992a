// Puzzle 41, step 2: the row read once. Each invocation keeps its part of y
// and of dy in private arrays, VECS vec4s of each, so the dot product and
// the output are computed from there: memory sees one read of y, one of dy
// and one write of dx. A row holds at most 4 * VECS * TPB floats, a multiple of 4.
const TPB: u32 = 32u;
const VECS: u32 = 1u;

// The rows seen as vec4s: 16-byte loads and stores.
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> y: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> dy: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> cols: u32;

var<workgroup> slots: array<f32, TPB>;

// The workgroup's sum of one value per invocation, returned to every one (as in step 1).
fn workgroup_sum(t: u32, v: f32) -> f32 {
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

@compute @workgroup_size(TPB)
fn softmax_backward_registers(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = cols / 4u;
    let start = wid.x * quads;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 18 lines)
    // Quad t + k * TPB of each row, in private arrays; past the end, zeros,
    // which add nothing to the dot product.
    var yv: array<vec4<f32>, VECS>;
    var dyv: array<vec4<f32>, VECS>;
    var part = 0.0;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        yv[k] = vec4(0.0);
        dyv[k] = vec4(0.0);
        if (q < quads) {
            yv[k] = y[start + q];
            dyv[k] = dy[start + q];
        }
        part += dot(yv[k], dyv[k]);
    }
    let total = workgroup_sum(t, part);
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            out[start + q] = yv[k] * (dyv[k] - vec4(total));
        }
    }
    // END PUZZLE
}
