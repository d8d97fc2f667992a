// Puzzle 19, step 1: the square shared-memory tiles of puzzle 14, at full size.
// A TILE x TILE workgroup owns one TILE x TILE tile of out, one element per
// invocation, and walks a strip of a and a strip of b through workgroup memory,
// one tile of each at a time. Tiles that hang over the edge hold zeros.
const TILE: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> a_tile: array<array<f32, TILE>, TILE>;
var<workgroup> b_tile: array<array<f32, TILE>, TILE>;

@compute @workgroup_size(TILE, TILE)
fn sgemm_shared(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let tx = lid.x;
    let ty = lid.y;
    // The element of out this invocation owns (outside the matrix at a ragged edge).
    let row = wid.y * TILE + ty;
    let col = wid.x * TILE + tx;
    var acc = 0.0;
    // BEGIN PUZZLE (roughly 20 lines)
    // `size` is a uniform, so every invocation runs the same number of passes
    // and meets the same barriers, as WGSL requires.
    for (var k0 = 0u; k0 < size; k0 += TILE) {
        // Neighbouring invocations (tx) read neighbouring addresses of both inputs.
        var a_val = 0.0;
        if (row < size && k0 + tx < size) {
            a_val = a[row * size + k0 + tx];
        }
        var b_val = 0.0;
        if (k0 + ty < size && col < size) {
            b_val = b[(k0 + ty) * size + col];
        }
        a_tile[ty][tx] = a_val;
        b_tile[ty][tx] = b_val;
        workgroupBarrier();
        for (var k = 0u; k < TILE; k++) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        // Nobody may overwrite the tiles while a slower invocation still reads them.
        workgroupBarrier();
    }
    if (row < size && col < size) {
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
