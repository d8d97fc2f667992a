// Debugging, case 7: what compute-sanitizer sees. One block of 64 threads sums a
// vector of up to 64 elements: every thread stores its element in shared memory,
// then thread 0 adds up the 64 slots.
#define TPB 64

extern "C" __global__ void block_sum(float* out, const float* a, unsigned int size) {
    __shared__ float slots[TPB];
    unsigned int i = threadIdx.x;
    // Step 1: one element per slot; threads past the end store 0.
    slots[i] = i < size ? a[i] : 0.0f;
    // BEGIN PUZZLE
    // Every slot is stored before thread 0 reads any of them.
    __syncthreads();
    // AS GIVEN
    // END PUZZLE
    // Step 2: thread 0 adds up the slots.
    if (i == 0) {
        float total = 0.0f;
        for (unsigned int k = 0; k < TPB; k++) {
            total += slots[k];
        }
        out[0] = total;
    }
}
