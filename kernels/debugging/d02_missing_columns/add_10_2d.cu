// Debugging, case 2: the missing columns. Two 4 x 4 blocks side by side cover a 3 x 5 matrix.
extern "C" __global__ void add_10_2d(float* out, const float* a, unsigned int rows, unsigned int cols) {
    unsigned int row = blockIdx.y * blockDim.y + threadIdx.y;
    unsigned int col = blockIdx.x * blockDim.x + threadIdx.x;
    // BEGIN PUZZLE
    if (row < rows && col < cols) {
    // AS GIVEN
    if (row < rows && col < rows) {
    // END PUZZLE
        out[row * cols + col] = a[row * cols + col] + 10.0f;
    }
}
