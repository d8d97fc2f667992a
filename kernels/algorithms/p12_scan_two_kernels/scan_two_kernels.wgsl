// Puzzle 12: Prefix Sum (two kernels). Scan each tile, then add the totals of the earlier tiles.
const TPB: u32 = 8u;

// Bindings follow the spec's args: out, a, block_sums, size. Each entry point
// uses the ones it needs.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read_write> block_sums: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> tile: array<f32, TPB>;
var<workgroup> partial: array<f32, TPB>;

// Dispatch 1, given: the tile scan of the simple version, plus one extra store.
@compute @workgroup_size(8)
fn scan_tiles(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;

    // An invocation past the end contributes zero, so the last slot ends up
    // holding the tile's total even when the tile is not full.
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

    if (global_i < size) {
        out[global_i] = tile[local_i];
    }
    // One entry per workgroup: the sum of this tile's elements.
    if (local_i == TPB - 1u) {
        block_sums[wid.x] = tile[TPB - 1u];
    }
}

// Dispatch 2: starts only after every workgroup of dispatch 1 has finished, so
// all of block_sums is written and visible.
@compute @workgroup_size(8)
fn add_block_offsets(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;

    // BEGIN PUZZLE (roughly 15 lines)
    // The offset of workgroup b is block_sums[0] + ... + block_sums[b - 1]: each
    // invocation adds every TPB-th of those totals...
    var sum = 0.0;
    for (var j = local_i; j < wid.x; j += TPB) {
        sum += block_sums[j];
    }
    partial[local_i] = sum;
    workgroupBarrier();
    // ...and a tree combines the partial sums into slot 0.
    for (var half = TPB / 2u; half > 0u; half /= 2u) {
        if (local_i < half) {
            partial[local_i] += partial[local_i + half];
        }
        workgroupBarrier();
    }

    if (global_i < size) {
        out[global_i] += partial[0];
    }
    // END PUZZLE
}
