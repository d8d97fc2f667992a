// Debugging, case 5: the barrier in a branch. One workgroup of eight invocations
// reverses a vector of `size` elements through workgroup memory.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> tile: array<f32, TPB>;

@compute @workgroup_size(TPB)
fn reverse(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    // BEGIN PUZZLE
    if (i < size) {
        tile[i] = a[i];
    }
    // Every invocation reaches this barrier, whether it had an element or not.
    workgroupBarrier();
    if (i < size) {
        out[i] = tile[size - 1u - i];
    }
    // AS GIVEN
    if (i < size) {
        tile[i] = a[i];
        // Wait until the element this invocation reads has been stored.
        workgroupBarrier();
        out[i] = tile[size - 1u - i];
    }
    // END PUZZLE
}
