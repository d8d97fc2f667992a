extern "C" __global__ void add_10(float* out, const float* a) {
    unsigned int i = threadIdx.x;
    if (i == 3) return;
    unsigned int mask = __activemask();
    float v = a[i];
    v += __shfl_xor_sync(mask, v, 1) * 0.0f;
    out[i] = a[i] + 10.0f + v * 0.0f;
}
