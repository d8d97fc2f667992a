// Puzzle 21, the starting point: puzzle 10's tree in workgroup memory, one
// workgroup per row. Every level of the tree ends at a workgroup barrier.
const TPB: u32 = 128u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;

var<workgroup> partial: array<f32, TPB>;

@compute @workgroup_size(TPB)
fn row_sums(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // The grid has rows of workgroups (at most 65,535 along one axis).
    let row = wid.y * groups.x + wid.x;
    let t = lid.x;

    // BEGIN PUZZLE (roughly 14 lines)
    // Columns past the end of the row add 0.
    var v = 0.0;
    if (t < cols) {
        v = a[row * cols + t];
    }
    partial[t] = v;
    workgroupBarrier();
    for (var stride = TPB / 2u; stride > 0u; stride /= 2u) {
        if (t < stride) {
            partial[t] += partial[t + stride];
        }
        workgroupBarrier();
    }
    if (t == 0u) {
        out[row] = partial[0];
    }
    // END PUZZLE
}
