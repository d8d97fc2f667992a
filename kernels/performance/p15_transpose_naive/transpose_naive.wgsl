// Puzzle 15: transpose, naive. A 32 x 8 workgroup covers a 32 x 32 tile of `a`;
// each invocation copies four elements of one column of the tile, 8 rows apart.
// Reading a row of `a` is coalesced; writing it as a column of `out` is not.
const TILE: u32 = 32u;
const BLOCK_ROWS: u32 = 8u;

// a is rows x cols, out is cols x rows, both row-major.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> rows: u32;
@group(0) @binding(3) var<uniform> cols: u32;

@compute @workgroup_size(32, 8)
fn transpose_naive(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let col = wid.x * TILE + lid.x;
    let row = wid.y * TILE + lid.y;
    // BEGIN PUZZLE (roughly 6 lines)
    for (var j = 0u; j < TILE; j += BLOCK_ROWS) {
        if (row + j < rows && col < cols) {
            // Neighbouring invocations read neighbours, and write `rows` floats apart.
            out[col * rows + row + j] = a[(row + j) * cols + col];
        }
    }
    // END PUZZLE
}
