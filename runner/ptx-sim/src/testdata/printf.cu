// printf of every argument kind, and a local array indexed at run time
// (NVRTC keeps it in .local memory, as printf's argument buffer).
extern "C" __global__ void local_sum(float* out, const float* a, unsigned int n) {
    unsigned int i = threadIdx.x;
    float seen[8];
    for (unsigned int k = 0; k < n; k++) seen[(i + k) % n] = a[k];
    float sum = 0.0f;
    for (unsigned int k = 0; k < n; k++) sum += seen[k];
    out[i] = sum + seen[i % n];
    printf("t%u|%d|%5.2f|%s|%c|%lld|%x\n", i, -(int)i, sum, "ok", 'A' + i, (long long)i << 33, 255u);
}
