// Puzzle 15: the same elements and the same two branches, but each group of 32
// invocations (an NVIDIA warp) is given elements of one kind only. Group 2w takes
// the even elements of a run of 64, group 2w + 1 the odd ones.
const TPB: u32 = 256u;
const WARP: u32 = 32u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;
@group(0) @binding(3) var<uniform> iters: u32;

// The same two loops as the divergent version.
fn settle(x0: f32, even: bool) -> f32 {
    var x = x0;
    if (even) {
        for (var k = 0u; k < iters; k++) {
            x = fma(x, 0.5, 1.0);
        }
    } else {
        for (var k = 0u; k < iters; k++) {
            x = fma(x, -0.5, 1.5);
        }
    }
    return x;
}

@compute @workgroup_size(256)
fn two_branches(@builtin(global_invocation_id) gid: vec3<u32>) {
    let warp = gid.x / WARP;
    let lane = gid.x % WARP;
    // BEGIN PUZZLE (roughly 4 lines)
    // Each pair of groups covers 64 elements: lane l of the even group takes
    // element 2l of them, lane l of the odd group element 2l + 1.
    let i = (warp / 2u) * (2u * WARP) + 2u * lane + warp % 2u;
    if (i < size) {
        out[i] = settle(a[i], i % 2u == 0u);
    }
    // END PUZZLE
}
