// Puzzle 5: Broadcast. Two vectors combine into a matrix: out[row][col] = a[col] + b[row].
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

@compute @workgroup_size(3, 3)
fn broadcast_add(@builtin(local_invocation_id) lid: vec3<u32>) {
    let row = lid.y;
    let col = lid.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (row < size && col < size) {
        out[row * size + col] = a[col] + b[row];
    }
    // END PUZZLE
}
