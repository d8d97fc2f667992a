// Puzzle 14: matrix multiplication from workgroup memory. One workgroup holds both matrices whole.
const TPB: u32 = 3u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

// Room for a TPB x TPB matrix each: this kernel only works while size <= TPB.
var<workgroup> a_s: array<array<f32, TPB>, TPB>;
var<workgroup> b_s: array<array<f32, TPB>, TPB>;

@compute @workgroup_size(3, 3)
fn matmul_shared(@builtin(local_invocation_id) lid: vec3<u32>) {
    // There is one workgroup, so the invocation's place in it is its place in the matrix.
    let row = lid.y;
    let col = lid.x;
    // BEGIN PUZZLE (roughly 12 lines)
    // Each invocation fetches one element of each input; together they fetch both matrices.
    if (row < size && col < size) {
        a_s[row][col] = a[row * size + col];
        b_s[row][col] = b[row * size + col];
    }
    // Every invocation is about to read elements that others loaded.
    workgroupBarrier();

    if (row < size && col < size) {
        var acc = 0.0;
        for (var k = 0u; k < size; k++) {
            acc += a_s[row][k] * b_s[k][col];
        }
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
