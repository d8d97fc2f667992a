// Puzzle 13 (row sum): one workgroup per row; the invocations sum strided slices, then halve their partials in workgroup memory.
// A power of two, so that halving always pairs every slot with another.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> cache: array<f32, TPB>;

@compute @workgroup_size(8)
fn row_sum(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // The grid is 1 x BATCH: the workgroup's y index is its row.
    let row = wid.y;
    let local_i = lid.x;

    // BEGIN PUZZLE (roughly 15 lines)
    // Each invocation walks the row in steps of TPB, so a row of any length is covered.
    // Side by side, the invocations read neighboring addresses at every step.
    var partial = 0.0;
    for (var col = local_i; col < size; col += TPB) {
        partial += a[row * size + col];
    }
    cache[local_i] = partial;
    workgroupBarrier();

    // Fold the upper half onto the lower half until one slot is left.
    for (var stride = TPB / 2u; stride > 0u; stride /= 2u) {
        if (local_i < stride) {
            cache[local_i] += cache[local_i + stride];
        }
        // Outside the if: every invocation of the workgroup must reach each barrier.
        workgroupBarrier();
    }

    if (local_i == 0u) {
        out[row] = cache[0];
    }
    // END PUZZLE
}
