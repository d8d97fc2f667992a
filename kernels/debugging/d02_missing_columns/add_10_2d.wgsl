// Debugging, case 2: the missing columns. Two 4 x 4 workgroups side by side cover a 3 x 5 matrix.
const TPB: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> rows: u32;
@group(0) @binding(3) var<uniform> cols: u32;

@compute @workgroup_size(TPB, TPB)
fn add_10_2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    let row = gid.y;
    let col = gid.x;
    // BEGIN PUZZLE
    if (row < rows && col < cols) {
    // AS GIVEN
    if (row < rows && col < rows) {
    // END PUZZLE
        out[row * cols + col] = a[row * cols + col] + 10.0;
    }
}
