// Puzzle 22: centre each group of 8 elements on its mean. A reduction by
// shuffles leaves the group's sum in its first lane; a shuffle from that lane
// then hands it to the other seven. Groups of 8 fit in any subgroup of 8 or
// more lanes, so the result does not depend on the subgroup size.
const TPB: u32 = 64u;
const GROUP: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(TPB)
fn centre_groups(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
) {
    // Elements follow the lanes, so a group's 8 elements sit in 8 lanes in a row.
    let i = wid.x * TPB + subgroup * width + lane;
    // `size` is a multiple of GROUP: a group lies wholly before or past the end.
    var v = 0.0;
    if (i < size) {
        v = a[i];
    }

    // BEGIN PUZZLE (roughly 9 lines)
    // WGSL's shuffles have no segment width: lane 4 of a group reads lane 0 of
    // the next at offset 4. The first lane's additions stay inside its group,
    // though, and only the first lane's sum is used.
    var sum = v;
    for (var offset = GROUP / 2u; offset > 0u; offset /= 2u) {
        sum += subgroupShuffleDown(sum, offset);
    }
    // Every lane asks for its group's first lane, by number.
    sum = subgroupShuffle(sum, lane & ~(GROUP - 1u));
    if (i < size) {
        out[i] = v - sum / f32(GROUP);
    }
    // END PUZZLE
}
