// Debugging, case 1: the missing guard. Two workgroups of four invocations, five elements.
const TPB: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(TPB)
fn add_10_blocks(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    // BEGIN PUZZLE
    if (i < size) {
        out[i] = a[i] + 10.0;
    }
    // AS GIVEN
    out[i] = a[i] + 10.0;
    // END PUZZLE
}
