// Puzzle 15: a tiled matrix product with TILE x TILE tiles (8 at the teaching
// size, 32 in the benchmarks). A TILE x TILE/4 workgroup owns one tile of out;
// each invocation computes four of its elements, TILE/4 rows apart. Every
// workgroup does a whole tile's arithmetic, even where the tile hangs over the
// edge of the matrix.
const TILE: u32 = 8u;
const PER_THREAD: u32 = 4u;
const BLOCK_ROWS: u32 = TILE / PER_THREAD;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> a_tile: array<array<f32, TILE>, TILE>;
var<workgroup> b_tile: array<array<f32, TILE>, TILE>;

@compute @workgroup_size(TILE, BLOCK_ROWS)
fn matmul_tiles(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let tx = lid.x;
    let ty = lid.y;
    let row = wid.y * TILE + ty;  // plus 0, 1, 2, 3 times BLOCK_ROWS
    let col = wid.x * TILE + tx;
    // From a uniform: every invocation meets the same barriers, as WGSL requires.
    let tiles = (size + TILE - 1u) / TILE;
    var acc = array<f32, PER_THREAD>(0.0, 0.0, 0.0, 0.0);
    // BEGIN PUZZLE (roughly 27 lines)
    for (var t = 0u; t < tiles; t++) {
        // Each invocation loads four elements of each tile; zeros past the edge.
        for (var r = 0u; r < PER_THREAD; r++) {
            let y = ty + r * BLOCK_ROWS;
            let a_col = t * TILE + tx;
            let b_row = t * TILE + y;
            var a_val = 0.0;
            if (row + r * BLOCK_ROWS < size && a_col < size) {
                a_val = a[(row + r * BLOCK_ROWS) * size + a_col];
            }
            var b_val = 0.0;
            if (b_row < size && col < size) {
                b_val = b[b_row * size + col];
            }
            a_tile[y][tx] = a_val;
            b_tile[y][tx] = b_val;
        }
        workgroupBarrier();
        // The full TILE steps, whether or not the tile is full: the zeros add nothing.
        for (var k = 0u; k < TILE; k++) {
            let b_k = b_tile[k][tx];
            for (var r = 0u; r < PER_THREAD; r++) {
                acc[r] += a_tile[ty + r * BLOCK_ROWS][k] * b_k;
            }
        }
        workgroupBarrier();
    }
    // END PUZZLE
    // Given: each of the thread's four outputs stored where it lies inside
    // the matrix.
    for (var r = 0u; r < PER_THREAD; r++) {
        if (row + r * BLOCK_ROWS < size && col < size) {
            out[(row + r * BLOCK_ROWS) * size + col] = acc[r];
        }
    }
}
