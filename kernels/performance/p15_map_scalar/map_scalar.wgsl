// Puzzle 15: puzzle 1's map at scale, one float per invocation. The grid has
// rows because one axis of a WebGPU grid stops at 65,535 workgroups.
const TPB: u32 = 256u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(256)
fn map_scalar(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let block = wid.y * groups.x + wid.x;
    // BEGIN PUZZLE (roughly 4 lines)
    let i = block * TPB + lid.x;
    if (i < size) {
        out[i] = a[i] + 10.0;
    }
    // END PUZZLE
}
