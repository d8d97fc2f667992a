// Layouts: puzzle 4 again. WGSL has no view types; a helper function holds the layout.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

// Where element (row, col) of the size x size row-major matrix lives in the
// flat buffer. Every access goes through here, so the layout is written once.
fn at(row: u32, col: u32) -> u32 {
    return row * size + col;
}

@compute @workgroup_size(3, 3)
fn add_10_2d_view(@builtin(local_invocation_id) lid: vec3<u32>) {
    let row = lid.y;
    let col = lid.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (row < size && col < size) {
        out[at(row, col)] = a[at(row, col)] + 10.0;
    }
    // END PUZZLE
}
