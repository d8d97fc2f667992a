// Puzzle 17, step 4: step 3 with 16-byte loads, four of them in flight per
// invocation, so that every subgroup keeps enough bytes on the way.
const TPB: u32 = 256u;
const UNROLL: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
// The input seen as vec4s: one 16-byte load per element. WGSL cannot view the
// same buffer as both f32 and vec4<f32>, so this version takes sizes that are
// multiples of 4 (the CUDA version also handles a ragged end).
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;
@group(0) @binding(4) var<uniform> count: u32;

var<workgroup> group_sums: array<f32, TPB>;
var<workgroup> tile: array<f32, TPB>;

fn lanes_sum(v: vec4<f32>) -> f32 {
    return (v.x + v.y) + (v.z + v.w);
}

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
    let stride = groups.x * TPB;
    let quads = size / 4u;

    var value = 0.0;
    // BEGIN PUZZLE (roughly 13 lines)
    var sums = vec4<f32>(0.0);
    var i = wid.x * TPB + lid.x;
    // Whole rounds of UNROLL passes: the four loads do not depend on each other.
    for (; i + (UNROLL - 1u) * stride < quads; i += UNROLL * stride) {
        let v0 = a[i];
        let v1 = a[i + stride];
        let v2 = a[i + 2u * stride];
        let v3 = a[i + 3u * stride];
        sums += vec4<f32>(lanes_sum(v0), lanes_sum(v1), lanes_sum(v2), lanes_sum(v3));
    }
    // The passes left over, one at a time.
    for (; i < quads; i += stride) {
        sums.x += lanes_sum(a[i]);
    }
    value = (sums.x + sums.y) + (sums.z + sums.w);
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
