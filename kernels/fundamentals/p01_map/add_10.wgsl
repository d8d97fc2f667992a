// Puzzle 1: Map. One invocation per element, each adds 10 to its own element.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;

@compute @workgroup_size(4)
fn add_10(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    // BEGIN PUZZLE (roughly 1 line)
    out[i] = a[i] + 10.0;
    // END PUZZLE
}
