// Debugging, case 5: the barrier in a branch. One block of eight threads reverses
// a vector of `size` elements through shared memory.
#define TPB 8

extern "C" __global__ void reverse(float* out, const float* a, unsigned int size) {
    __shared__ float tile[TPB];
    unsigned int i = threadIdx.x;
    // BEGIN PUZZLE
    if (i < size) {
        tile[i] = a[i];
    }
    // Every thread reaches this barrier, whether it had an element or not.
    __syncthreads();
    if (i < size) {
        out[i] = tile[size - 1 - i];
    }
    // AS GIVEN
    if (i < size) {
        tile[i] = a[i];
        // Wait until the element this thread reads has been stored.
        __syncthreads();
        out[i] = tile[size - 1 - i];
    }
    // END PUZZLE
}
