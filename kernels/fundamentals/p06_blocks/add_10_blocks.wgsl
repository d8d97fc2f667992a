// Puzzle 6: Blocks. Three workgroups of four invocations share a 9-element vector.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(4)
fn add_10_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // 4 is the workgroup size declared above. WGSL also hands you this
    // value ready-made as @builtin(global_invocation_id).
    // BEGIN PUZZLE (roughly 4 lines)
    let i = wid.x * 4u + lid.x;
    if (i < size) {
        out[i] = a[i] + 10.0;
    }
    // END PUZZLE
}
