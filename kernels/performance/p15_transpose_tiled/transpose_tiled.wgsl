// Puzzle 15: transpose through workgroup memory. The workgroup reads a 32 x 32
// tile of `a` row by row, and writes it to `out` row by row too: the turn happens
// in workgroup memory, where reading a column is allowed (but see the padded version).
const TILE: u32 = 32u;
const BLOCK_ROWS: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> rows: u32;
@group(0) @binding(3) var<uniform> cols: u32;

var<workgroup> tile: array<array<f32, TILE>, TILE>;

@compute @workgroup_size(32, 8)
fn transpose_tiled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let tx = lid.x;
    let ty = lid.y;
    // BEGIN PUZZLE (roughly 18 lines)
    // Load: the tile at (wid.y, wid.x) of a, one row per subgroup of 32.
    let col = wid.x * TILE + tx;
    let row = wid.y * TILE + ty;
    for (var j = 0u; j < TILE; j += BLOCK_ROWS) {
        if (row + j < rows && col < cols) {
            tile[ty + j][tx] = a[(row + j) * cols + col];
        }
    }
    workgroupBarrier();
    // Store: that tile lands at (wid.x, wid.y) of out. 32 neighbouring invocations
    // write a row of out, which is a column of the tile.
    let out_col = wid.y * TILE + tx;
    let out_row = wid.x * TILE + ty;
    for (var j = 0u; j < TILE; j += BLOCK_ROWS) {
        if (out_row + j < cols && out_col < rows) {
            out[(out_row + j) * rows + out_col] = tile[tx][ty + j];
        }
    }
    // END PUZZLE
}
