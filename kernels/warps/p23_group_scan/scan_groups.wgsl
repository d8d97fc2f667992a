// Puzzle 23: prefix sums inside groups of 8 lanes, by shuffling up. `out`
// gets the inclusive scan, `excl` the exclusive one.
const TPB: u32 = 64u;
const GROUP: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read_write> excl: array<f32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

@compute @workgroup_size(TPB)
fn scan_groups(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
) {
    let i = wid.x * TPB + subgroup * width + lane;
    // This lane's place in its group of 8.
    let rank = lane % GROUP;
    var v = 0.0;
    if (i < size) {
        v = a[i];
    }

    // BEGIN PUZZLE (roughly 12 lines)
    // Offsets 1, 2, 4: each lane adds the running sum `offset` lanes below it,
    // if its group has a lane there. Every lane shuffles; only the `if` differs.
    var sum = v;
    for (var offset = 1u; offset < GROUP; offset *= 2u) {
        let below = subgroupShuffleUp(sum, offset);
        if (rank >= offset) {
            sum += below;
        }
    }
    // The exclusive scan is the inclusive one shifted up by a lane; the
    // group's first lane starts at 0.
    let before = subgroupShuffleUp(sum, 1u);
    if (i < size) {
        out[i] = sum;
        excl[i] = select(before, 0.0, rank == 0u);
    }
    // END PUZZLE
}
