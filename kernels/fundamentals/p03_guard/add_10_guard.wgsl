// Puzzle 3: Guards. Eight invocations, four elements: the extra ones must do nothing.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(8)
fn add_10_guard(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (i < size) {
        out[i] = a[i] + 10.0;
    }
    // END PUZZLE
}
