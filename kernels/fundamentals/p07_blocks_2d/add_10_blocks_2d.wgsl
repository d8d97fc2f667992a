// Puzzle 7: 2D Blocks. A 2x2 grid of 3x3 workgroups covers a 5x5 row-major matrix.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(3, 3)
fn add_10_blocks_2d(@builtin(global_invocation_id) gid: vec3<u32>) {
    // gid = workgroup_id * (3, 3, 1) + local_invocation_id, in each axis.
    // BEGIN PUZZLE (roughly 5 lines)
    let row = gid.y;
    let col = gid.x;
    if (row < size && col < size) {
        out[row * size + col] = a[row * size + col] + 10.0;
    }
    // END PUZZLE
}
