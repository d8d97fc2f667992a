// Puzzle 17, step 1: a reduction of any length. Every workgroup folds TPB
// elements with the shared-memory tree of puzzle 10 and leaves one partial sum;
// a second dispatch folds the partial sums.
const TPB: u32 = 256u;

// Bindings follow the spec's args: out, a, partials, size, count.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;
@group(0) @binding(4) var<uniform> count: u32;

var<workgroup> tile: array<f32, TPB>;

// Dispatch 1: one element per invocation. The grid has rows (wid.y) because
// WGSL allows at most 65,535 workgroups along one axis.
@compute @workgroup_size(256)
fn block_sums(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let block = wid.y * groups.x + wid.x;
    let i = block * TPB + lid.x;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 14 lines)
    // Past the end, an invocation adds nothing: 0 is the identity of +.
    var value = 0.0;
    if (i < size) {
        value = a[i];
    }
    tile[t] = value;
    workgroupBarrier();
    // Halve the live slots until slot 0 holds the workgroup's sum.
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            tile[t] += tile[t + half];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        partials[block] = tile[0];
    }
    // END PUZZLE
}

// Dispatch 2, given: one workgroup folds `count` partial sums. It starts only
// after every workgroup of dispatch 1 has finished.
@compute @workgroup_size(256)
fn finish(@builtin(local_invocation_id) lid: vec3<u32>) {
    let t = lid.x;
    var sum = 0.0;
    for (var j = t; j < count; j += TPB) {
        sum += partials[j];
    }
    tile[t] = sum;
    workgroupBarrier();
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (t < half) {
            tile[t] += tile[t + half];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        out[0] = tile[0];
    }
}
