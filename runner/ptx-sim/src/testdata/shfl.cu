extern "C" __global__ void warp_sum(float* out, const float* a, unsigned int size) {
    unsigned int i = threadIdx.x;
    if (i >= size) return;
    float v = a[i];
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    if (i == 0) out[0] = v;
}
