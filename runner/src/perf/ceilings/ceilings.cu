// Calibration kernels: the device's own ceilings, measured the way the book's
// kernels are timed. Compiled with NVRTC and launched by `runner calibrate`.

// Streaming: every thread copies 16-byte vectors, grid-stride, so the whole
// buffer moves once per launch (bytes read + bytes written).
extern "C" __global__ void stream_copy(float* out, const float* in, unsigned int vectors) {
    const float4* src = reinterpret_cast<const float4*>(in);
    float4* dst = reinterpret_cast<float4*>(out);
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        dst[i] = src[i];
    }
}

// Reading only: every thread sums its 16-byte vectors, grid-stride, and
// stores one float, so the bytes written are a fraction of a percent of those
// read. A reduction or a dot product moves bytes this way.
extern "C" __global__ void stream_read(float* out, const float* in, unsigned int vectors) {
    const float4* src = reinterpret_cast<const float4*>(in);
    unsigned int stride = gridDim.x * blockDim.x;
    unsigned int first = blockIdx.x * blockDim.x + threadIdx.x;
    float4 sum = make_float4(0.0f, 0.0f, 0.0f, 0.0f);
    for (unsigned int i = first; i < vectors; i += stride) {
        float4 v = src[i];
        sum.x += v.x; sum.y += v.y; sum.z += v.z; sum.w += v.w;
    }
    out[first] = (sum.x + sum.y) + (sum.z + sum.w);
}

// Writing only: every thread stores 16-byte vectors, grid-stride, and reads
// nothing but one value to store.
extern "C" __global__ void stream_write(float* out, const float* in, unsigned int vectors) {
    float4* dst = reinterpret_cast<float4*>(out);
    float v = in[0];
    float4 value = make_float4(v, v, v, v);
    unsigned int stride = gridDim.x * blockDim.x;
    for (unsigned int i = blockIdx.x * blockDim.x + threadIdx.x; i < vectors; i += stride) {
        dst[i] = value;
    }
}

// Arithmetic: eight independent FMA chains per thread keep every FP32 pipe
// busy, four steps of each per iteration (32 FMAs) so loop bookkeeping stays
// negligible; the sum is stored so the compiler cannot drop the work.
extern "C" __global__ void fma_chains(float* out, const float* seed, unsigned int iterations) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float x = seed[0] + 1e-7f * (float)(i & 1023);
    float a0 = x, a1 = x + 1.0f, a2 = x + 2.0f, a3 = x + 3.0f;
    float a4 = x + 4.0f, a5 = x + 5.0f, a6 = x + 6.0f, a7 = x + 7.0f;
    const float m = 0.9999f, c = 1e-4f;
    for (unsigned int k = 0; k < iterations; ++k) {
        for (int step = 0; step < 4; ++step) {
            a0 = fmaf(a0, m, c); a1 = fmaf(a1, m, c); a2 = fmaf(a2, m, c); a3 = fmaf(a3, m, c);
            a4 = fmaf(a4, m, c); a5 = fmaf(a5, m, c); a6 = fmaf(a6, m, c); a7 = fmaf(a7, m, c);
        }
    }
    out[i] = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
}

// Launch overhead: a kernel that does nothing, timed like any other.
extern "C" __global__ void empty(float* out) {}
