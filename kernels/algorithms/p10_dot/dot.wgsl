// Puzzle 10: Dot product. One workgroup multiplies pairs, then adds the products up as a tree.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

// One product per invocation; the reduction folds them into slot 0.
var<workgroup> partial: array<f32, TPB>;

@compute @workgroup_size(8)
fn dot(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;
    // BEGIN PUZZLE (roughly 14 lines)
    // Invocations past the end of the vectors contribute 0, so that every slot
    // the reduction reads holds a term of the sum.
    var product = 0.0;
    if (global_i < size) {
        product = a[global_i] * b[global_i];
    }
    partial[local_i] = product;
    workgroupBarrier();

    // Each step adds the upper half of the live slots onto the lower half:
    // 8 -> 4 -> 2 -> 1. TPB must be a power of two.
    for (var stride = TPB / 2u; stride > 0u; stride /= 2u) {
        if (local_i < stride) {
            partial[local_i] += partial[local_i + stride];
        }
        // Outside the if: every invocation must reach every barrier.
        workgroupBarrier();
    }

    if (local_i == 0u) {
        out[0] = partial[0];
    }
    // END PUZZLE
}
