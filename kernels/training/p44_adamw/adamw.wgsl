// Puzzle 44: one AdamW step, fused. Every parameter is updated from its
// gradient and its two moments in one pass: four arrays read, three written,
// a vec4 of each at a time, across a grid of BLOCKS workgroups that strides
// over the arrays (Puzzle 17's grid-stride loop). The length is a multiple of 4.
const TPB: u32 = 8u;
const BLOCKS: u32 = 2u;

@group(0) @binding(0) var<storage, read_write> param_out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read_write> m_out: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read_write> v_out: array<vec4<f32>>;
@group(0) @binding(3) var<storage, read> param: array<vec4<f32>>;
@group(0) @binding(4) var<storage, read> grad: array<vec4<f32>>;
@group(0) @binding(5) var<storage, read> m: array<vec4<f32>>;
@group(0) @binding(6) var<storage, read> v: array<vec4<f32>>;
@group(0) @binding(7) var<uniform> lr: f32;
@group(0) @binding(8) var<uniform> beta1: f32;
@group(0) @binding(9) var<uniform> beta2: f32;
@group(0) @binding(10) var<uniform> eps: f32;
@group(0) @binding(11) var<uniform> weight_decay: f32;
@group(0) @binding(12) var<uniform> step: u32;
@group(0) @binding(13) var<uniform> quads: u32;

// Four parameters' new values and moments.
struct Updated {
    param: vec4<f32>,
    m: vec4<f32>,
    v: vec4<f32>,
}

// correction1 and correction2 are the bias corrections, 1 - beta^step.
fn adamw_four(p: vec4<f32>, g: vec4<f32>, m0: vec4<f32>, v0: vec4<f32>,
              correction1: f32, correction2: f32) -> Updated {
    // Until the update is written, the old values pass through unchanged.
    var u = Updated(p, m0, v0);
    // The moments move towards the gradient and its square; the parameter
    // decays, then steps along the corrected first moment over the root of
    // the corrected second.
    u.m = beta1 * m0 + (1.0 - beta1) * g;
    u.v = beta2 * v0 + (1.0 - beta2) * g * g;
    let stride = (u.m / correction1) / (sqrt(u.v / correction2) + vec4(eps));
    u.param = p * (1.0 - lr * weight_decay) - lr * stride;
    return u;
}

@compute @workgroup_size(TPB)
fn adamw(@builtin(global_invocation_id) gid: vec3<u32>) {
    let correction1 = 1.0 - pow(beta1, f32(step));
    let correction2 = 1.0 - pow(beta2, f32(step));
    // BEGIN PUZZLE (roughly 6 lines)
    for (var q = gid.x; q < quads; q += BLOCKS * TPB) {
        let u = adamw_four(param[q], grad[q], m[q], v[q], correction1, correction2);
        param_out[q] = u.param;
        m_out[q] = u.m;
        v_out[q] = u.v;
    }
    // END PUZZLE
}
