// Puzzle 30, step 1: a chain of three elementwise operations as three
// dispatches, as a framework runs them one operator at a time: the column's
// bias, GELU, then the column's scale. Each dispatch reads a whole array
// from memory and writes a whole array back. A vec4 an invocation.
const TPB: u32 = 64u;
// sqrt(2 / pi), for GELU's tanh form (WGSL has no erf).
const GELU_K: f32 = 0.7978845608;

// Bindings follow the spec's args; each entry point uses the ones it needs.
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> t1: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> t2: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> x: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> bias: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> scale: array<vec4<f32>>;
@group(0) @binding(6) var<uniform> cols: u32;
@group(0) @binding(7) var<uniform> total_quads: u32;

fn gelu(v: vec4<f32>) -> vec4<f32> {
    return 0.5 * v * (vec4(1.0) + tanh(GELU_K * (v + 0.044715 * v * v * v)));
}

// Dispatch 1: t1 = x + bias[col].
@compute @workgroup_size(TPB)
fn add_bias(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    // A quad never straddles two rows: a row is a multiple of 4 floats.
    if (q < total_quads) {
        t1[q] = x[q] + bias[q % (cols / 4u)];
    }
}

// Dispatch 2: t2 = gelu(t1).
@compute @workgroup_size(TPB)
fn gelu_all(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    if (q < total_quads) {
        // BEGIN PUZZLE (roughly 1 line)
        t2[q] = gelu(t1[q]);
        // END PUZZLE
    }
}

// Dispatch 3: out = t2 * scale[col].
@compute @workgroup_size(TPB)
fn scale_columns(@builtin(global_invocation_id) gid: vec3<u32>) {
    let q = gid.x;
    if (q < total_quads) {
        out[q] = t2[q] * scale[q % (cols / 4u)];
    }
}
