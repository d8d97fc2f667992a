// Puzzle 17, step 3: a fixed grid, sized to fill the GPU once, in which every
// invocation adds many elements before any invocation talks to another.
const TPB: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;
@group(0) @binding(4) var<uniform> count: u32;

var<workgroup> group_sums: array<f32, TPB>;
var<workgroup> tile: array<f32, TPB>;

@compute @workgroup_size(256)
fn block_sums(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    // The whole grid covers groups.x * TPB consecutive elements per pass.
    let stride = groups.x * TPB;

    var value = 0.0;
    // BEGIN PUZZLE (roughly 3 lines)
    // Consecutive invocations read consecutive elements on every pass, so the
    // loads stay coalesced however many passes there are.
    for (var i = wid.x * TPB + lid.x; i < size; i += stride) {
        value += a[i];
    }
    // END PUZZLE

    // Given: step 2's subgroup and workgroup reduction of `value`.
    let sum = subgroupAdd(value);
    if (lane == 0u) {
        group_sums[subgroup] = sum;
    }
    workgroupBarrier();
    if (subgroup == 0u) {
        var part = 0.0;
        for (var j = lane; j < subgroups; j += width) {
            part += group_sums[j];
        }
        let total = subgroupAdd(part);
        if (lane == 0u) {
            partials[wid.x] = total;
        }
    }
}

// Dispatch 2, given: one workgroup folds `count` partial sums (step 1's finish).
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
