// Puzzle 14: naive matrix multiplication. One invocation per element of out = a · b, straight from storage.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

@compute @workgroup_size(3, 3)
fn matmul_naive(@builtin(global_invocation_id) gid: vec3<u32>) {
    // The invocation's element of out: y picks the row, x the column, as in puzzle 7.
    let row = gid.y;
    let col = gid.x;
    // BEGIN PUZZLE (roughly 7 lines)
    if (row < size && col < size) {
        // Walk along row `row` of a and down column `col` of b at the same pace.
        var acc = 0.0;
        for (var k = 0u; k < size; k++) {
            acc += a[row * size + k] * b[k * size + col];
        }
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
