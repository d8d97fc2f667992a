// Puzzle 12: Prefix Sum (one kernel). Each workgroup scans its tile and adds what lies before it.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> tile: array<f32, TPB>;
// One partial sum per invocation, combined into the offset of this workgroup.
var<workgroup> partial: array<f32, TPB>;

@compute @workgroup_size(8)
fn prefix_sum_blocks(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;
    // The first element of this workgroup's tile: a[0 .. block_start) lies before it.
    let block_start = wid.x * TPB;

    // Part 1, given: the simple version's scan, run on this workgroup's tile.
    // An invocation past the end contributes zero, so the last tile needs no other care.
    var value = 0.0;
    if (global_i < size) {
        value = a[global_i];
    }
    tile[local_i] = value;
    workgroupBarrier();
    for (var offset = 1u; offset < TPB; offset *= 2u) {
        var left = 0.0;
        if (local_i >= offset) {
            left = tile[local_i - offset];
        }
        workgroupBarrier();
        tile[local_i] += left;
        workgroupBarrier();
    }

    // BEGIN PUZZLE (roughly 15 lines)
    // Part 2: the offset, a[0] + ... + a[block_start - 1], read from the input,
    // which no workgroup writes. Each invocation adds every TPB-th element...
    var sum = 0.0;
    for (var j = local_i; j < block_start; j += TPB) {
        sum += a[j];
    }
    partial[local_i] = sum;
    workgroupBarrier();
    // ...and a tree halves the partial sums until slot 0 holds the offset.
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (local_i < half) {
            partial[local_i] += partial[local_i + half];
        }
        workgroupBarrier();
    }

    if (global_i < size) {
        out[global_i] = tile[local_i] + partial[0];
    }
    // END PUZZLE
}
