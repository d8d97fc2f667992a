// Puzzle 44: one AdamW step, fused. Every parameter is updated from its
// gradient and its two moments in one pass: four arrays read, three written,
// a float4 of each at a time, across a grid of BLOCKS blocks that strides
// over the arrays (Puzzle 17's grid-stride loop). The length is a multiple of 4.
#define TPB 8
#define BLOCKS 2

// The step's settings, the same for every parameter.
struct Settings {
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weight_decay;
    // The bias corrections, 1 - beta^step.
    float correction1;
    float correction2;
};

// One parameter's new value and moments.
struct Updated {
    float param;
    float m;
    float v;
};

__device__ Updated adamw_one(const Settings& s, float param, float grad, float m, float v) {
    // Until the update is written, the old values pass through unchanged.
    Updated u = {param, m, v};
    // The moments move towards the gradient and its square; the parameter
    // decays, then steps along the corrected first moment over the root of
    // the corrected second.
    u.m = s.beta1 * m + (1.0f - s.beta1) * grad;
    u.v = s.beta2 * v + (1.0f - s.beta2) * grad * grad;
    float step = (u.m / s.correction1) / (sqrtf(u.v / s.correction2) + s.eps);
    u.param = param * (1.0f - s.lr * s.weight_decay) - s.lr * step;
    return u;
}

extern "C" __global__ void adamw(float* param_out, float* m_out, float* v_out, const float* param,
                                 const float* grad, const float* m, const float* v, float lr,
                                 float beta1, float beta2, float eps, float weight_decay,
                                 unsigned int step, unsigned int quads) {
    Settings s = {lr, beta1, beta2, eps, weight_decay, 1.0f - powf(beta1, (float)step),
                  1.0f - powf(beta2, (float)step)};
    const float4* p4 = reinterpret_cast<const float4*>(param);
    const float4* g4 = reinterpret_cast<const float4*>(grad);
    const float4* m4 = reinterpret_cast<const float4*>(m);
    const float4* v4 = reinterpret_cast<const float4*>(v);
    // BEGIN PUZZLE (roughly 10 lines)
    for (unsigned int q = blockIdx.x * TPB + threadIdx.x; q < quads; q += BLOCKS * TPB) {
        float4 p = p4[q], g = g4[q], mq = m4[q], vq = v4[q];
        Updated x = adamw_one(s, p.x, g.x, mq.x, vq.x);
        Updated y = adamw_one(s, p.y, g.y, mq.y, vq.y);
        Updated z = adamw_one(s, p.z, g.z, mq.z, vq.z);
        Updated w = adamw_one(s, p.w, g.w, mq.w, vq.w);
        reinterpret_cast<float4*>(param_out)[q] = make_float4(x.param, y.param, z.param, w.param);
        reinterpret_cast<float4*>(m_out)[q] = make_float4(x.m, y.m, z.m, w.m);
        reinterpret_cast<float4*>(v_out)[q] = make_float4(x.v, y.v, z.v, w.v);
    }
    // END PUZZLE
}
