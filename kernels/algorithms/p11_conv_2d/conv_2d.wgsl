// Puzzle 11 (2D): each 8x8 workgroup stages its patch of the image plus a halo of K - 1 rows and columns.
const TPB: u32 = 8u;
const K: u32 = 3u;
// The side of the shared tile: the 8x8 patch plus the halo on the right and at the bottom.
const TILE: u32 = TPB + K - 1u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> width: u32;
@group(0) @binding(4) var<uniform> height: u32;

var<workgroup> tile: array<array<f32, TILE>, TILE>;
var<workgroup> weights: array<array<f32, K>, K>;

// The image value at (x, y), or zero outside the image.
fn pixel(x: u32, y: u32) -> f32 {
    if (x < width && y < height) {
        return a[y * width + x];
    }
    return 0.0;
}

@compute @workgroup_size(8, 8)
fn conv_2d(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // The image coordinates of the workgroup's top-left pixel.
    let x0 = wid.x * TPB;
    let y0 = wid.y * TPB;
    let lx = lid.x;
    let ly = lid.y;
    let gx = x0 + lx;
    let gy = y0 + ly;

    // BEGIN PUZZLE (roughly 23 lines)
    // 1. The patch itself: one pixel per invocation.
    tile[ly][lx] = pixel(gx, gy);
    // 2. The right halo: the first K - 1 columns of invocations reach TPB columns further.
    if (lx < K - 1u) {
        tile[ly][TPB + lx] = pixel(x0 + TPB + lx, gy);
    }
    // 3. The bottom halo: the first K - 1 rows of invocations reach TPB rows further.
    if (ly < K - 1u) {
        tile[TPB + ly][lx] = pixel(gx, y0 + TPB + ly);
    }
    // 4. The corner, which belongs to neither strip: the invocations in both groups fetch it.
    if (lx < K - 1u && ly < K - 1u) {
        tile[TPB + ly][TPB + lx] = pixel(x0 + TPB + lx, y0 + TPB + ly);
    }

    if (lx < K && ly < K) {
        weights[ly][lx] = b[ly * K + lx];
    }
    workgroupBarrier();

    if (gx < width && gy < height) {
        var sum = 0.0;
        for (var ky = 0u; ky < K; ky++) {
            for (var kx = 0u; kx < K; kx++) {
                sum += tile[ly + ky][lx + kx] * weights[ky][kx];
            }
        }
        out[gy * width + gx] = sum;
    }
    // END PUZZLE
}
