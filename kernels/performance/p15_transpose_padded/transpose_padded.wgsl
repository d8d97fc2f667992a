// Puzzle 15: the workgroup-memory transpose with one unused column in the tile.
// A row of the tile is then 33 words long, so the 32 words of a tile column lie
// in 32 different banks, and 32 invocations read a column in one pass instead of 32.
const TILE: u32 = 32u;
const BLOCK_ROWS: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> rows: u32;
@group(0) @binding(3) var<uniform> cols: u32;

// Word (r, c) is at r * 33 + c: bank (r + c) % 32, different for each r.
var<workgroup> tile: array<array<f32, 33>, TILE>;

@compute @workgroup_size(32, 8)
fn transpose_padded(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let tx = lid.x;
    let ty = lid.y;
    // BEGIN PUZZLE (roughly 15 lines)
    let col = wid.x * TILE + tx;
    let row = wid.y * TILE + ty;
    for (var j = 0u; j < TILE; j += BLOCK_ROWS) {
        if (row + j < rows && col < cols) {
            tile[ty + j][tx] = a[(row + j) * cols + col];
        }
    }
    workgroupBarrier();
    let out_col = wid.y * TILE + tx;
    let out_row = wid.x * TILE + ty;
    for (var j = 0u; j < TILE; j += BLOCK_ROWS) {
        if (out_row + j < cols && out_col < rows) {
            out[(out_row + j) * rows + out_col] = tile[tx][ty + j];
        }
    }
    // END PUZZLE
}
