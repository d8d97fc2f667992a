// Puzzle 25: scale each row to length 1. The workgroup needs one number, the
// row's length, in every invocation: a workgroup sum, then a broadcast.
const TPB: u32 = 128u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;

// One slot per subgroup. A WGSL subgroup has at least 4 invocations.
var<workgroup> subgroup_sums: array<f32, TPB / 4u>;
// The broadcast slot: written by one invocation, read by all.
var<workgroup> norm: f32;

@compute @workgroup_size(TPB)
fn normalize_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    let row = wid.y * groups.x + wid.x;
    let t = lid.x;
    var v = 0.0;
    if (t < cols) {
        v = a[row * cols + t];
    }

    // BEGIN PUZZLE (roughly 22 lines)
    // The workgroup's sum of squares: puzzle 21's subgroup sums and fold.
    let squares = subgroupAdd(v * v);
    if (lane == 0u) {
        subgroup_sums[subgroup] = squares;
    }
    workgroupBarrier();
    if (subgroup == 0u) {
        var part = 0.0;
        for (var j = lane; j < subgroups; j += width) {
            part += subgroup_sums[j];
        }
        let total = subgroupAdd(part);
        if (lane == 0u) {
            norm = sqrt(total);
        }
    }
    // The broadcast: after this barrier every invocation reads what one wrote.
    workgroupBarrier();
    let row_length = norm;
    if (t < cols) {
        out[row * cols + t] = select(0.0, v / row_length, row_length > 0.0);
    }
    // END PUZZLE
}
