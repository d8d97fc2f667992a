// Puzzle 14: tiled matrix multiplication, WGSL version. No views and no async copies: windows are index arithmetic.
const TPB: u32 = 3u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> a_tile: array<array<f32, TPB>, TPB>;
var<workgroup> b_tile: array<array<f32, TPB>, TPB>;

// The nearest thing WGSL has to a sub-view: the top-left corner of a TPB x TPB window.
// A pointer into the middle of a storage array cannot be formed, so the window stays a pair
// of numbers and every access goes through the functions below.
struct Window {
    row0: u32,
    col0: u32,
}

// Element (r, c) of a window on a matrix, or zero where the window hangs past the edge.
fn read_a(w: Window, r: u32, c: u32) -> f32 {
    let row = w.row0 + r;
    let col = w.col0 + c;
    if (row < size && col < size) {
        return a[row * size + col];
    }
    return 0.0;
}

fn read_b(w: Window, r: u32, c: u32) -> f32 {
    let row = w.row0 + r;
    let col = w.col0 + c;
    if (row < size && col < size) {
        return b[row * size + col];
    }
    return 0.0;
}

@compute @workgroup_size(3, 3)
fn matmul_idiomatic(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let ty = lid.y;
    let tx = lid.x;
    let row0 = wid.y * TPB;
    let col0 = wid.x * TPB;

    var acc = 0.0;
    // BEGIN PUZZLE (roughly 13 lines)
    for (var k0 = 0u; k0 < size; k0 += TPB) {
        // This step's window on a (our rows) and on b (our columns).
        let a_win = Window(row0, k0);
        let b_win = Window(k0, col0);
        // A plain load: each value passes through the invocation on its way to workgroup memory.
        a_tile[ty][tx] = read_a(a_win, ty, tx);
        b_tile[ty][tx] = read_b(b_win, ty, tx);
        workgroupBarrier();

        for (var k = 0u; k < TPB; k++) {
            acc += a_tile[ty][k] * b_tile[k][tx];
        }
        // No invocation may overwrite the tiles while others still read them.
        workgroupBarrier();
    }
    let row = row0 + ty;
    let col = col0 + tx;
    if (row < size && col < size) {
        out[row * size + col] = acc;
    }
    // END PUZZLE
}
