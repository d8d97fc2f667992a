// Puzzle 12: Prefix Sum (Blelloch). An exclusive scan: up-sweep, then down-sweep, over a tree.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> tile: array<f32, TPB>;

@compute @workgroup_size(8)
fn prefix_sum_blelloch(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;

    // The tree spans all TPB slots. Slots past the end hold zero, which changes no sum.
    var value = 0.0;
    if (global_i < size) {
        value = a[global_i];
    }
    tile[local_i] = value;
    workgroupBarrier();

    // BEGIN PUZZLE (roughly 23 lines)
    // Up-sweep. At the level with span `stride`, invocation k owns the pair of
    // subtrees that ends at slot right = (k + 1) * 2 * stride - 1, and folds the
    // left one's total (at right - stride) into it. Pairs never overlap, so one
    // barrier per level is enough.
    for (var stride = 1u; stride < TPB; stride *= 2u) {
        let right = (local_i + 1u) * 2u * stride - 1u;
        if (right < TPB) {
            tile[right] += tile[right - stride];
        }
        workgroupBarrier();
    }

    // The root now holds the total of the whole tile. Nothing comes before the
    // tile, so the root's prefix is zero.
    if (local_i == 0u) {
        tile[TPB - 1u] = 0.0;
    }
    workgroupBarrier();

    // Down-sweep, from the root to the leaves. The right slot holds the prefix of
    // the pair; the left child gets that prefix, and the right child gets it plus
    // the left subtree's total, which the up-sweep left in the left slot.
    for (var stride = TPB / 2u; stride > 0u; stride /= 2u) {
        let right = (local_i + 1u) * 2u * stride - 1u;
        if (right < TPB) {
            let left_total = tile[right - stride];
            tile[right - stride] = tile[right];
            tile[right] += left_total;
        }
        workgroupBarrier();
    }

    if (global_i < size) {
        out[global_i] = tile[local_i];
    }
    // END PUZZLE
}
