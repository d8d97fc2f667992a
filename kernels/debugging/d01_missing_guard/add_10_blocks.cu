// Debugging, case 1: the missing guard. Two blocks of four threads, five elements.
extern "C" __global__ void add_10_blocks(float* out, const float* a, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN PUZZLE
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
    // AS GIVEN
    out[i] = a[i] + 10.0f;
    // END PUZZLE
}
