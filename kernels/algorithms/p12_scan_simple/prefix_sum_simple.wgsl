// Puzzle 12: Prefix Sum (simple). A Hillis-Steele inclusive scan of one workgroup.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> tile: array<f32, TPB>;

@compute @workgroup_size(8)
fn prefix_sum_simple(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;

    // Stage the input; every round below works on these TPB slots.
    if (global_i < size) {
        tile[local_i] = a[global_i];
    }
    workgroupBarrier();

    // BEGIN PUZZLE (roughly 14 lines)
    // Rounds with offsets 1, 2, 4: after the round with offset d, slot i holds
    // the sum of the (up to) 2d inputs ending at i.
    for (var offset = 1u; offset < TPB; offset *= 2u) {
        // Take a copy of the neighbor's value first...
        var left = 0.0;
        if (local_i >= offset && global_i < size) {
            left = tile[local_i - offset];
        }
        // ...and let every invocation take its copy before any slot changes:
        // without this barrier a neighbor may already hold this round's sum.
        workgroupBarrier();
        if (global_i < size) {
            tile[local_i] += left;
        }
        // The next round reads what this one wrote.
        workgroupBarrier();
    }

    if (global_i < size) {
        out[global_i] = tile[local_i];
    }
    // END PUZZLE
}
