// Puzzle 22, the butterfly: the same centring with XOR shuffles. After three
// exchanges every lane of a group holds the group's sum; nothing to broadcast.
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
    let i = wid.x * TPB + subgroup * width + lane;
    var v = 0.0;
    if (i < size) {
        v = a[i];
    }

    // BEGIN PUZZLE (roughly 7 lines)
    // Lane l swaps with lane l ^ mask. Masks below GROUP flip only the low
    // three bits of the lane, so partners never leave their group of 8.
    var sum = v;
    for (var mask = GROUP / 2u; mask > 0u; mask /= 2u) {
        sum += subgroupShuffleXor(sum, mask);
    }
    if (i < size) {
        out[i] = v - sum / f32(GROUP);
    }
    // END PUZZLE
}
