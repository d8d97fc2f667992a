// Puzzle 11 (block boundary): each workgroup stages its slice of a plus a halo of CONV - 1 elements from the next slice.
const TPB: u32 = 8u;
const CONV: u32 = 4u;
// The window of the workgroup's last invocation ends CONV - 1 elements past the workgroup's slice.
const TILE: u32 = TPB + CONV - 1u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> tile: array<f32, TILE>;
var<workgroup> weights: array<f32, CONV>;

@compute @workgroup_size(8)
fn conv_1d_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let block_start = wid.x * TPB;
    let local_i = lid.x;
    let global_i = block_start + local_i;

    // BEGIN PUZZLE (roughly 24 lines)
    // The main slice: one element per invocation, zero past the end of a. (WGSL zeroes
    // workgroup memory at the start, but CUDA does not: write the zeros in both.)
    if (global_i < size) {
        tile[local_i] = a[global_i];
    } else {
        tile[local_i] = 0.0;
    }

    // The halo: the first CONV - 1 invocations also fetch the start of the next slice.
    if (local_i < CONV - 1u) {
        let halo_i = block_start + TPB + local_i;
        if (halo_i < size) {
            tile[TPB + local_i] = a[halo_i];
        } else {
            tile[TPB + local_i] = 0.0;
        }
    }

    if (local_i < CONV) {
        weights[local_i] = b[local_i];
    }
    // One barrier covers both arrays.
    workgroupBarrier();

    if (global_i < size) {
        // Every window lies inside the tile and the padding is zero: no test in the loop.
        var sum = 0.0;
        for (var j = 0u; j < CONV; j++) {
            sum += tile[local_i + j] * weights[j];
        }
        out[global_i] = sum;
    }
    // END PUZZLE
}
