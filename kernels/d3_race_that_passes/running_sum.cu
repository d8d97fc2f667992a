// Debugging, case 3: the race that passes. One block of eight threads computes
// running sums in shared memory, doubling the reach at each step.
#define TPB 8

extern "C" __global__ void running_sum(float* out, const float* a, unsigned int size) {
    __shared__ float sums[TPB];
    unsigned int i = threadIdx.x;
    sums[i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    // After the steps of reach 1, 2 and 4, slot i holds a[0] + ... + a[i].
    for (unsigned int reach = 1; reach < TPB; reach *= 2) {
        // BEGIN PUZZLE
        float left = i >= reach ? sums[i - reach] : 0.0f;
        // Every thread has read its value before any slot changes.
        __syncthreads();
        sums[i] += left;
        __syncthreads();
        // AS GIVEN
        if (i >= reach) {
            sums[i] += sums[i - reach];
        }
        __syncthreads();
        // END PUZZLE
    }
    if (i < size) {
        out[i] = sums[i];
    }
}
