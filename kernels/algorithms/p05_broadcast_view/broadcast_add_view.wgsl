// Layouts: puzzle 5 again. Hand-made strided layouts, where a stride of 0 does the broadcast.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

// A 2D layout reduced to its two strides: how far the flat index moves for
// one step down a column (row_stride) and one step along a row (col_stride).
struct Strides {
    row_stride: u32,
    col_stride: u32,
}

fn offset(s: Strides, row: u32, col: u32) -> u32 {
    return row * s.row_stride + col * s.col_stride;
}

@compute @workgroup_size(3, 3)
fn broadcast_add_view(@builtin(local_invocation_id) lid: vec3<u32>) {
    let row = lid.y;
    let col = lid.x;
    // out is an ordinary row-major matrix. The vectors are read as size x size
    // matrices too: a ignores the row (row stride 0), b ignores the column.
    let out_layout = Strides(size, 1u);
    let a_layout = Strides(0u, 1u);
    let b_layout = Strides(1u, 0u);
    // BEGIN PUZZLE (roughly 3 lines)
    if (row < size && col < size) {
        out[offset(out_layout, row, col)] =
            a[offset(a_layout, row, col)] + b[offset(b_layout, row, col)];
    }
    // END PUZZLE
}
