// Puzzle 30, step 2: the same chain as one kernel. Each invocation loads its
// vec4 of x once, adds the bias, applies GELU and the scale in registers,
// and stores the result: the two intermediate arrays never exist.
const TPB: u32 = 64u;
// sqrt(2 / pi), for GELU's tanh form (WGSL has no erf).
const GELU_K: f32 = 0.7978845608;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> scale: array<vec4<f32>>;
@group(0) @binding(4) var<uniform> cols: u32;
@group(0) @binding(5) var<uniform> total_quads: u32;

fn gelu(v: vec4<f32>) -> vec4<f32> {
    return 0.5 * v * (vec4(1.0) + tanh(GELU_K * (v + 0.044715 * v * v * v)));
}

@compute @workgroup_size(TPB)
fn bias_gelu_scale(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    // BEGIN PUZZLE (roughly 4 lines)
    // A quad never straddles two rows: a row is a multiple of 4 floats.
    if (q < total_quads) {
        let col_quad = q % (cols / 4u);
        out[q] = gelu(x[q] + bias[col_quad]) * scale[col_quad];
    }
    // END PUZZLE
}
