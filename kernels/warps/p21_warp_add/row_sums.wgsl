// Puzzle 21, with one builtin: subgroupAdd returns the sum over the subgroup
// to every invocation of it; the device picks how (shuffles, or better).
const TPB: u32 = 128u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;

// One slot per subgroup. A WGSL subgroup has at least 4 invocations.
var<workgroup> subgroup_sums: array<f32, TPB / 4u>;

@compute @workgroup_size(TPB)
fn row_sums(
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

    // BEGIN PUZZLE (roughly 15 lines)
    let sum = subgroupAdd(v);
    if (lane == 0u) {
        subgroup_sums[subgroup] = sum;
    }
    workgroupBarrier();
    if (subgroup == 0u) {
        // More subgroup sums than lanes when subgroups are narrow: each lane
        // adds every width-th one first.
        var part = 0.0;
        for (var j = lane; j < subgroups; j += width) {
            part += subgroup_sums[j];
        }
        let total = subgroupAdd(part);
        if (lane == 0u) {
            out[row] = total;
        }
    }
    // END PUZZLE
}
