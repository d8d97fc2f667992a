// Puzzle 8: Shared Memory. Each workgroup stages its slice of a in fast workgroup memory.
const TPB: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

// One slot per invocation of the workgroup; the length must be a constant.
var<workgroup> tile: array<f32, TPB>;

@compute @workgroup_size(4)
fn add_10_shared(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let global_i = gid.x;
    let local_i = lid.x;

    // BEGIN PUZZLE (roughly 6 lines)
    // Every invocation copies its own element from storage into workgroup memory...
    if (global_i < size) {
        tile[local_i] = a[global_i];
    }
    // ...and waits here until the whole workgroup has done the same.
    workgroupBarrier();

    if (global_i < size) {
        out[global_i] = tile[local_i] + 10.0;
    }
    // END PUZZLE
}
