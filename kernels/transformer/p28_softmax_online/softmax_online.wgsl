// Puzzle 28, step 2: the online softmax. One pass over the row finds its
// largest value and the sum of exp(x - largest) together; a second writes
// the outputs. One workgroup per row.
const TPB: u32 = 32u;
const LOWEST: f32 = -3.402823466e38;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
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

@compute @workgroup_size(TPB)
fn softmax_online(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let start = wid.x * cols;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // The running pair: the largest value so far, and the sum of exp(x - it).
    var largest = LOWEST;
    var sum = 0.0;
    for (var j = t; j < cols; j += TPB) {
        let v = a[start + j];
        if (v > largest) {
            // A new largest value: the old terms shrink by exp(old - new).
            sum = sum * exp(largest - v) + 1.0;
            largest = v;
        } else {
            sum += exp(v - largest);
        }
    }
    // Each invocation's sum is relative to its own largest value: rescale it
    // to the row's before adding (one that saw nothing has sum 0).
    let row_largest = workgroup_max(t, largest);
    let row_sum = workgroup_sum(t, sum * exp(largest - row_largest));
    for (var j = t; j < cols; j += TPB) {
        out[start + j] = exp(a[start + j] - row_largest) / row_sum;
    }
    // END PUZZLE
}
