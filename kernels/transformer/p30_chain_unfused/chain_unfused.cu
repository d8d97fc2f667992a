// Puzzle 30, step 1: a chain of three elementwise operations as three
// kernels, as a framework runs them one operator at a time: the column's
// bias, GELU, then the column's scale. Each launch reads a whole array from
// memory and writes a whole array back. A float4 a thread.
#define TPB 64
// sqrt(2 / pi), for GELU's tanh form (WGSL has no erf, so both languages
// use the same approximation).
#define GELU_K 0.7978845608f

__device__ float gelu(float v) {
    return 0.5f * v * (1.0f + tanhf(GELU_K * (v + 0.044715f * v * v * v)));
}

// Launch 1: t1 = x + bias[col].
extern "C" __global__ void add_bias(float* t1, const float* x, const float* bias,
                                    unsigned int cols, unsigned int total_quads) {
    unsigned int q = blockIdx.x * TPB + threadIdx.x;
    if (q < total_quads) {
        // A quad never straddles two rows: a row is a multiple of 4 floats.
        unsigned int col_quad = q % (cols / 4);
        float4 v = reinterpret_cast<const float4*>(x)[q];
        float4 b = reinterpret_cast<const float4*>(bias)[col_quad];
        reinterpret_cast<float4*>(t1)[q] = make_float4(v.x + b.x, v.y + b.y, v.z + b.z, v.w + b.w);
    }
}

// Launch 2: t2 = gelu(t1).
extern "C" __global__ void gelu_all(float* t2, const float* t1, unsigned int total_quads) {
    unsigned int q = blockIdx.x * TPB + threadIdx.x;
    if (q < total_quads) {
        // BEGIN PUZZLE (roughly 2 lines)
        float4 v = reinterpret_cast<const float4*>(t1)[q];
        reinterpret_cast<float4*>(t2)[q] = make_float4(gelu(v.x), gelu(v.y), gelu(v.z), gelu(v.w));
        // END PUZZLE
    }
}

// Launch 3: out = t2 * scale[col].
extern "C" __global__ void scale_columns(float* out, const float* t2, const float* scale,
                                         unsigned int cols, unsigned int total_quads) {
    unsigned int q = blockIdx.x * TPB + threadIdx.x;
    if (q < total_quads) {
        unsigned int col_quad = q % (cols / 4);
        float4 v = reinterpret_cast<const float4*>(t2)[q];
        float4 s = reinterpret_cast<const float4*>(scale)[col_quad];
        reinterpret_cast<float4*>(out)[q] = make_float4(v.x * s.x, v.y * s.y, v.z * s.z, v.w * s.w);
    }
}
