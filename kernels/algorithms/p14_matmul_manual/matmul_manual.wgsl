// Puzzle 14: manual tiling at 9 x 9. The last step of a strip is cut short instead of padded with zeros.
const TPB: u32 = 3u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> a_tile: array<array<f32, TPB>, TPB>;
var<workgroup> b_tile: array<array<f32, TPB>, TPB>;

@compute @workgroup_size(3, 3)
fn matmul_manual(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let ty = lid.y;
    let tx = lid.x;
    let row = wid.y * TPB + ty;
    let col = wid.x * TPB + tx;

    // From a uniform: every invocation runs the same steps and meets the same barriers.
    let tiles = (size + TPB - 1u) / TPB;
    var acc = 0.0;
    for (var t = 0u; t < tiles; t++) {
        let a_col = t * TPB + tx;
        let b_row = t * TPB + ty;
        // Load only what exists. Past the edge nothing is stored, so such a slot
        // keeps whatever an earlier step left there (or was never written at all).
        if (row < size && a_col < size) {
            a_tile[ty][tx] = a[row * size + a_col];
        }
        if (b_row < size && col < size) {
            b_tile[ty][tx] = b[b_row * size + col];
        }
        workgroupBarrier();

        // BEGIN PUZZLE (roughly 6 lines)
        // This step covers k = t*TPB .. t*TPB + TPB - 1, or up to the last
        // column of a if that comes first: only those slots hold this step's data.
        if (row < size && col < size) {
            let width = min(TPB, size - t * TPB);
            for (var k = 0u; k < width; k++) {
                acc += a_tile[ty][k] * b_tile[k][tx];
            }
        }
        // END PUZZLE
        // Everyone is done reading before the next step overwrites the tiles.
        workgroupBarrier();
    }
    if (row < size && col < size) {
        out[row * size + col] = acc;
    }
}
