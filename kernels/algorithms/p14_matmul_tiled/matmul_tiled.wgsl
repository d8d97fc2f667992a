// Puzzle 14: tiled matrix multiplication. Each workgroup walks a strip of a and a strip of b one TPB x TPB tile at a time.
const TPB: u32 = 3u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

// One tile of each input at a time, however large the matrices are.
var<workgroup> a_tile: array<array<f32, TPB>, TPB>;
var<workgroup> b_tile: array<array<f32, TPB>, TPB>;

@compute @workgroup_size(3, 3)
fn matmul_tiled(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let ty = lid.y;
    let tx = lid.x;
    // The element of out this invocation owns (it may lie outside the matrix at the edges).
    let row = wid.y * TPB + ty;
    let col = wid.x * TPB + tx;

    // Rounded up: the last tile hangs over the edge when TPB does not divide size.
    // It comes from a uniform, so every invocation runs the same number of steps and
    // meets the same barriers, as WGSL requires.
    let tiles = (size + TPB - 1u) / TPB;
    var acc = 0.0;
    // BEGIN PUZZLE (roughly 22 lines)
    for (var t = 0u; t < tiles; t++) {
        // Tile t of the strips: columns t*TPB.. of a's rows, rows t*TPB.. of b's columns.
        let a_col = t * TPB + tx;
        let b_row = t * TPB + ty;
        // Past the edge, store zero: a zero term leaves the sum unchanged.
        var a_val = 0.0;
        if (row < size && a_col < size) {
            a_val = a[row * size + a_col];
        }
        var b_val = 0.0;
        if (b_row < size && col < size) {
            b_val = b[b_row * size + col];
        }
        a_tile[ty][tx] = a_val;
        b_tile[ty][tx] = b_val;
        // Barrier 1: the tiles are complete before anyone reads them.
        workgroupBarrier();

        for (var k = 0u; k < TPB; k++) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        // Barrier 2: everyone is done reading before the next step overwrites the tiles.
        workgroupBarrier();
    }
    if (row < size && col < size) {
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
