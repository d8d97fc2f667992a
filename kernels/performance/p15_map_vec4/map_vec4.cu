// Puzzle 15: the same map with one 16-byte load and one 16-byte store per
// thread: four floats per instruction, a quarter of the threads.
#define TPB 256

extern "C" __global__ void map_vec4(float* out, const float* a, unsigned int size) {
    // cudaMalloc returns addresses aligned to 256 bytes, so element 0, and every
    // fourth element after it, starts a 16-byte-aligned float4.
    float4* out4 = reinterpret_cast<float4*>(out);
    const float4* a4 = reinterpret_cast<const float4*>(a);
    unsigned int quads = size / 4;  // the spec's sizes are multiples of 4
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    // BEGIN PUZZLE (roughly 5 lines)
    unsigned int i = block * TPB + threadIdx.x;
    if (i < quads) {
        float4 v = a4[i];
        out4[i] = make_float4(v.x + 10.0f, v.y + 10.0f, v.z + 10.0f, v.w + 10.0f);
    }
    // END PUZZLE
}
