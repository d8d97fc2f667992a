// Puzzle 28, step 4: the row read once. Each invocation loads its part of the
// row into registers as vec4s, VECS of them, and the maximum, the sum and the
// outputs are computed from there: memory sees one read and one write of
// each element. A row holds at most 4 * VECS * TPB floats, a multiple of 4.
const TPB: u32 = 32u;
const VECS: u32 = 1u;
const LOWEST: f32 = -3.402823466e38;

// The rows seen as vec4s: 16-byte loads and stores.
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> cols: u32;

var<workgroup> slots: array<f32, TPB>;

// The workgroup's maximum and sum of one value per invocation, returned to
// every invocation (as in step 1).
fn workgroup_max(t: u32, v: f32) -> f32 {
    slots[t] = v;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            slots[t] = max(slots[t], slots[t + half]);
        }
        workgroupBarrier();
    }
    let m = slots[0];
    workgroupBarrier();
    return m;
}

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

fn max4(v: vec4<f32>) -> f32 {
    return max(max(v.x, v.y), max(v.z, v.w));
}

@compute @workgroup_size(TPB)
fn softmax_registers(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = cols / 4u;
    let start = wid.x * quads;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 24 lines)
    // Quad t + k * TPB of the row, in a private array. Past the end:
    // LOWEST, whose exp is 0.
    var v: array<vec4<f32>, VECS>;
    var largest = LOWEST;
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        v[k] = vec4(LOWEST);
        if (q < quads) {
            v[k] = a[start + q];
        }
        largest = max(largest, max4(v[k]));
    }
    largest = workgroup_max(t, largest);
    var sum = 0.0;
    for (var k = 0u; k < VECS; k++) {
        v[k] = exp(v[k] - vec4(largest));
        sum += (v[k].x + v[k].y) + (v[k].z + v[k].w);
    }
    let inv = 1.0 / workgroup_sum(t, sum);
    for (var k = 0u; k < VECS; k++) {
        let q = t + k * TPB;
        if (q < quads) {
            out[start + q] = v[k] * inv;
        }
    }
    // END PUZZLE
}
