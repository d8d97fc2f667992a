// Puzzle 4: 2D Map. A 3x3 workgroup covers a 2x2 row-major matrix.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(3, 3)
fn add_10_2d(@builtin(local_invocation_id) lid: vec3<u32>) {
    let row = lid.y;
    let col = lid.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (row < size && col < size) {
        out[row * size + col] = a[row * size + col] + 10.0;
    }
    // END PUZZLE
}
