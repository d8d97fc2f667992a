// Puzzle 11 (simple): 1D convolution in one workgroup, with the signal and the weights staged in workgroup memory.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;
@group(0) @binding(4) var<uniform> conv: u32;

// One workgroup holds everything, so both arrays need at most one slot per invocation.
var<workgroup> shared_a: array<f32, TPB>;
var<workgroup> shared_b: array<f32, TPB>;

@compute @workgroup_size(8)
fn conv_1d_simple(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;

    // BEGIN PUZZLE (roughly 16 lines)
    // Each invocation copies at most one element of the signal and one weight.
    if (global_i < size) {
        shared_a[local_i] = a[global_i];
    }
    if (global_i < conv) {
        shared_b[local_i] = b[global_i];
    }
    // Every window reads its neighbors' slots: wait until all of them are filled.
    workgroupBarrier();

    if (global_i < size) {
        var sum = 0.0;
        for (var j = 0u; j < conv; j++) {
            // Past the end of the signal the term is zero, and the slot was never loaded.
            if (local_i + j < size) {
                sum += shared_a[local_i + j] * shared_b[j];
            }
        }
        out[global_i] = sum;
    }
    // END PUZZLE
}
