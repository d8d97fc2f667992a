extern "C" __global__ void shift(float* out, const float* a) {
    __shared__ float t[8];
    unsigned int i = threadIdx.x;
    t[i] = a[i];
    __syncthreads();
    out[i] = t[(i + 1) % 8];
}
