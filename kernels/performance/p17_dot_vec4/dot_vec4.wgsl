// Puzzle 17, step 5: step 4's loop over two inputs: the dot product of puzzle
// 10 at the memory roof.
const TPB: u32 = 256u;
const UNROLL: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
// Both inputs as vec4s, so sizes are multiples of 4 (as in step 4).
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read_write> partials: array<f32>;
@group(0) @binding(4) var<uniform> size: u32;
@group(0) @binding(5) var<uniform> count: u32;

var<workgroup> group_sums: array<f32, TPB>;
var<workgroup> tile: array<f32, TPB>;

fn lanes_dot(x: vec4<f32>, y: vec4<f32>) -> f32 {
    return dot(x, y);
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
    // BEGIN PUZZLE (roughly 17 lines)
    var sums = vec4<f32>(0.0);
    var i = wid.x * TPB + lid.x;
    // Eight independent loads per round: four from each input.
    for (; i + (UNROLL - 1u) * stride < quads; i += UNROLL * stride) {
        let x0 = a[i];
        let y0 = b[i];
        let x1 = a[i + stride];
        let y1 = b[i + stride];
        let x2 = a[i + 2u * stride];
        let y2 = b[i + 2u * stride];
        let x3 = a[i + 3u * stride];
        let y3 = b[i + 3u * stride];
        sums += vec4<f32>(lanes_dot(x0, y0), lanes_dot(x1, y1), lanes_dot(x2, y2), lanes_dot(x3, y3));
    }
    for (; i < quads; i += stride) {
        sums.x += lanes_dot(a[i], b[i]);
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
