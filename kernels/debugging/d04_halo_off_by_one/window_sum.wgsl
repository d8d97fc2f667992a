// Debugging, case 4: the halo off by one. Each output is the sum of its element of `a`
// and the WINDOW - 1 elements before it; each workgroup stages its slice of `a` in
// workgroup memory, after a halo of the elements its first windows reach back to.
const TPB: u32 = 8u;
const WINDOW: u32 = 3u;
const TILE: u32 = TPB + WINDOW - 1u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

// tile[WINDOW - 1 + k] holds element block_start + k of `a`; the slots before it, the halo.
var<workgroup> tile: array<f32, TILE>;

@compute @workgroup_size(TPB)
fn window_sum(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let block_start = wid.x * TPB;
    let local_i = lid.x;
    let global_i = block_start + local_i;
    if (global_i < size) {
        tile[WINDOW - 1u + local_i] = a[global_i];
    } else {
        tile[WINDOW - 1u + local_i] = 0.0;
    }
    // The halo: the first invocations also fetch the end of the previous slice
    // (zeros before the start of `a`).
    // BEGIN PUZZLE
    if (local_i < WINDOW - 1u) {
    // AS GIVEN
    if (local_i < WINDOW - 2u) {
    // END PUZZLE
        if (block_start + local_i >= WINDOW - 1u) {
            tile[local_i] = a[block_start + local_i - (WINDOW - 1u)];
        } else {
            tile[local_i] = 0.0;
        }
    }
    workgroupBarrier();
    if (global_i < size) {
        // The window of element global_i is slots local_i to local_i + WINDOW - 1.
        var sum = 0.0;
        for (var k = 0u; k < WINDOW; k++) {
            sum += tile[local_i + k];
        }
        out[global_i] = sum;
    }
}
