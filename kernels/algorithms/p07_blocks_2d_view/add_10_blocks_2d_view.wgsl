// Layouts: puzzle 7 again. Each workgroup describes its own tile with a small struct.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

// The workgroup is TPB x TPB invocations; the tiles are the same size.
const TPB: u32 = 3u;

// A rectangle of the size x size matrix: its top-left corner and how many rows
// and columns it covers. It holds numbers only: WGSL cannot keep a buffer in a struct.
struct Tile {
    first_row: u32,
    first_col: u32,
    rows: u32,
    cols: u32,
}

// Flat index of element (row, col) of the tile, counted from the tile's corner.
fn at(t: Tile, row: u32, col: u32) -> u32 {
    return (t.first_row + row) * size + (t.first_col + col);
}

@compute @workgroup_size(3, 3)
fn add_10_blocks_2d_view(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // The workgroup's corner in the matrix.
    let first_row = wid.y * TPB;
    let first_col = wid.x * TPB;
    // Inside its tile, an invocation's position is its position in the workgroup.
    let row = lid.y;
    let col = lid.x;
    // BEGIN PUZZLE (roughly 6 lines)
    // TPB rows and columns from the corner, clipped at the edge of the matrix.
    let last_row = min(first_row + TPB, size);
    let last_col = min(first_col + TPB, size);
    let tile = Tile(first_row, first_col, last_row - first_row, last_col - first_col);
    if (row < tile.rows && col < tile.cols) {
        out[at(tile, row, col)] = a[at(tile, row, col)] + 10.0;
    }
    // END PUZZLE
}
