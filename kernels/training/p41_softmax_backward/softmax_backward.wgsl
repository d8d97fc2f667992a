// Puzzle 41, step 1: a softmax's gradient, a row a workgroup. The forward
// kept its output y; the loss's gradient dy arrives from the layer above.
// Then dx = y * (dy - dot), with dot = the row's sum of y * dy. Two passes
// over the row: one for the dot product, one for the output.
const TPB: u32 = 32u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> y: array<f32>;
@group(0) @binding(2) var<storage, read> dy: array<f32>;
@group(0) @binding(3) var<uniform> cols: u32;

var<workgroup> slots: array<f32, TPB>;

// The workgroup's sum of one value per invocation, returned to every one.
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
fn softmax_backward(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let start = wid.x * cols;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 8 lines)
    var part = 0.0;
    for (var j = t; j < cols; j += TPB) {
        part += y[start + j] * dy[start + j];
    }
    let total = workgroup_sum(t, part);
    for (var j = t; j < cols; j += TPB) {
        out[start + j] = y[start + j] * (dy[start + j] - total);
    }
    // END PUZZLE
}
