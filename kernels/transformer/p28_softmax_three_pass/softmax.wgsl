// Puzzle 28, step 1: the softmax of each row, one workgroup per row, in
// three passes over the row: its largest value, the sum of exp(x - largest),
// and the outputs. The workgroup-wide maximum and sum are given.
const TPB: u32 = 32u;
// The lowest f32: the maximum of nothing yet.
const LOWEST: f32 = -3.402823466e38;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;

var<workgroup> slots: array<f32, TPB>;

// The maximum of one value per invocation, returned to every invocation: a
// tree in workgroup memory, then everyone reads the root.
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
    // The slots are written again by the next call.
    workgroupBarrier();
    return m;
}

// The same for a sum.
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
fn softmax(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let start = wid.x * cols;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 14 lines)
    // Pass 1: the row's largest value.
    var largest = LOWEST;
    for (var j = t; j < cols; j += TPB) {
        largest = max(largest, a[start + j]);
    }
    largest = workgroup_max(t, largest);
    // Pass 2: the sum, every exponent at most 0, so no term overflows.
    var sum = 0.0;
    for (var j = t; j < cols; j += TPB) {
        sum += exp(a[start + j] - largest);
    }
    sum = workgroup_sum(t, sum);
    // Pass 3: the outputs.
    for (var j = t; j < cols; j += TPB) {
        out[start + j] = exp(a[start + j] - largest) / sum;
    }
    // END PUZZLE
}
