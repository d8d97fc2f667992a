// Puzzle 27: smooth each row `iters` times with the 1-2-1 stencil. Each pass
// reads one workgroup buffer and writes the other, so one barrier per pass
// keeps every read before the next write.
const TPB: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;
@group(0) @binding(3) var<uniform> iters: u32;

var<workgroup> buffers: array<array<f32, TPB>, 2>;

@compute @workgroup_size(TPB)
fn smooth_rows(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let row = wid.x;
    let t = lid.x;
    if (t < cols) {
        buffers[0][t] = a[row * cols + t];
    }
    workgroupBarrier();

    // BEGIN PUZZLE (roughly 14 lines)
    var src = 0u;
    // `iters` is a uniform: every invocation runs the loop the same number
    // of times, so the barrier inside it is reached by all.
    for (var k = 0u; k < iters; k++) {
        if (t < cols) {
            let left = buffers[src][select(t - 1u, 0u, t == 0u)];
            let right = buffers[src][min(t + 1u, cols - 1u)];
            buffers[1u - src][t] = (left + 2.0 * buffers[src][t] + right) * 0.25;
        }
        // The next pass reads what this one wrote, and overwrites what this
        // one read: both are ordered by this single barrier.
        workgroupBarrier();
        src = 1u - src;
    }
    if (t < cols) {
        out[row * cols + t] = buffers[src][t];
    }
    // END PUZZLE
}
