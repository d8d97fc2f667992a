// Puzzle 21: row sums with the tree's levels inside a subgroup done by
// shuffles. Registers instead of workgroup memory, and one barrier instead of
// one per level. The subgroup size is the device's: read it, never assume it.
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
    // Columns past the end of the row add 0, and their lanes still shuffle.
    var v = 0.0;
    if (t < cols) {
        v = a[row * cols + t];
    }

    // BEGIN PUZZLE (roughly 20 lines)
    // Offsets width / 2, ..., 2, 1: each lane adds the value `offset` lanes
    // above it. Lanes near the top read past the subgroup and get undefined
    // values, but none of those ever reaches lane 0, which ends with the sum.
    for (var offset = width / 2u; offset > 0u; offset /= 2u) {
        v += subgroupShuffleDown(v, offset);
    }
    if (lane == 0u) {
        subgroup_sums[subgroup] = v;
    }
    // The only barrier: subgroup 0 reads what the others' lane 0 wrote.
    workgroupBarrier();
    if (subgroup == 0u) {
        // With subgroups of 8 there are 16 sums for 8 lanes: each lane first
        // adds every width-th one, then the lanes fold their totals.
        var part = 0.0;
        for (var j = lane; j < subgroups; j += width) {
            part += subgroup_sums[j];
        }
        for (var offset = width / 2u; offset > 0u; offset /= 2u) {
            part += subgroupShuffleDown(part, offset);
        }
        if (lane == 0u) {
            out[row] = part;
        }
    }
    // END PUZZLE
}
