// Puzzle 2: Zip. Each invocation adds one element of a to the matching element of b.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;

@compute @workgroup_size(4)
fn add(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    // BEGIN PUZZLE (roughly 1 line)
    out[i] = a[i] + b[i];
    // END PUZZLE
}
