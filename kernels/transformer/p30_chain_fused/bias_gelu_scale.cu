// Puzzle 30, step 2: the same chain as one kernel. Each thread loads its
// float4 of x once, adds the bias, applies GELU and the scale in registers,
// and stores the result: the two intermediate arrays never exist.
#define TPB 64
// sqrt(2 / pi), for GELU's tanh form.
#define GELU_K 0.7978845608f

__device__ float gelu(float v) {
    return 0.5f * v * (1.0f + tanhf(GELU_K * (v + 0.044715f * v * v * v)));
}

extern "C" __global__ void bias_gelu_scale(float* out, const float* x, const float* bias,
                                           const float* scale, unsigned int cols,
                                           unsigned int total_quads) {
    unsigned int q = blockIdx.x * TPB + threadIdx.x;
    // BEGIN PUZZLE (roughly 10 lines)
    if (q < total_quads) {
        // A quad never straddles two rows: a row is a multiple of 4 floats.
        unsigned int col_quad = q % (cols / 4);
        float4 v = reinterpret_cast<const float4*>(x)[q];
        float4 b = reinterpret_cast<const float4*>(bias)[col_quad];
        float4 s = reinterpret_cast<const float4*>(scale)[col_quad];
        reinterpret_cast<float4*>(out)[q] =
            make_float4(gelu(v.x + b.x) * s.x, gelu(v.y + b.y) * s.y, gelu(v.z + b.z) * s.z,
                        gelu(v.w + b.w) * s.w);
    }
    // END PUZZLE
}
