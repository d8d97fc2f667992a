// Puzzle 15: two branches of equal cost, taken by alternate invocations. Every
// subgroup holds both kinds, so it runs both loops, each with half its lanes idle.
const TPB: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;
@group(0) @binding(3) var<uniform> iters: u32;

// `iters` dependent multiply-adds: x -> x/2 + 1 for even elements (towards 2),
// x -> 3/2 - x/2 for odd ones (towards 1).
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
    // BEGIN PUZZLE (roughly 4 lines)
    let i = gid.x;
    if (i < size) {
        out[i] = settle(a[i], i % 2u == 0u);
    }
    // END PUZZLE
}
