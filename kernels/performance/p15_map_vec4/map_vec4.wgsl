// Puzzle 15: the same map with one 16-byte load and one 16-byte store per
// invocation: four floats per instruction, a quarter of the invocations.
const TPB: u32 = 256u;

// Both buffers seen as vec4s. WGSL cannot view one buffer both as f32 and as
// vec4<f32>, so the length must be a multiple of 4 (the spec's sizes are).
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(256)
fn map_vec4(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let quads = size / 4u;
    let block = wid.y * groups.x + wid.x;
    // BEGIN PUZZLE (roughly 4 lines)
    let i = block * TPB + lid.x;
    if (i < quads) {
        out[i] = a[i] + vec4<f32>(10.0);
    }
    // END PUZZLE
}
