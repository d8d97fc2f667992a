// Puzzle 15: the vector map again, launched with `dynamic_shared_bytes` of
// shared memory per block that it never touches. The reservation alone decides
// how many blocks fit on a multiprocessor at once, and so how many loads are
// in flight there.
#define TPB 256

extern "C" __global__ void map_reserved(float* out, const float* a, unsigned int size) {
    // Sized at launch (the spec's `dynamic_shared_bytes`); unused on purpose.
    extern __shared__ float reserved[];
    float4* out4 = reinterpret_cast<float4*>(out);
    const float4* a4 = reinterpret_cast<const float4*>(a);
    unsigned int quads = size / 4;
    unsigned int block = blockIdx.y * gridDim.x + blockIdx.x;
    // BEGIN PUZZLE (roughly 5 lines)
    unsigned int i = block * TPB + threadIdx.x;
    if (i < quads) {
        float4 v = a4[i];
        out4[i] = make_float4(v.x + 10.0f, v.y + 10.0f, v.z + 10.0f, v.w + 10.0f);
    }
    // END PUZZLE
}
