// Debugging, case 8: the kernel that never ends. One block of 32 threads sums a
// vector of up to 32 elements: the last thread adds up the block's slots, and
// thread 0 writes the total out.
#define TPB 32

extern "C" __global__ void block_total(float* out, const float* a, unsigned int size) {
    __shared__ float slots[TPB];
    __shared__ float total;
    // BEGIN PUZZLE
    unsigned int i = threadIdx.x;
    slots[i] = i < size ? a[i] : 0.0f;
    // Every slot is stored before the last thread adds them up.
    __syncthreads();
    if (i == TPB - 1) {
        float sum = 0.0f;
        for (unsigned int k = 0; k < TPB; k++) {
            sum += slots[k];
        }
        total = sum;
    }
    // The total is stored before thread 0 reads it.
    __syncthreads();
    if (i == 0) {
        out[0] = total;
    }
    // AS GIVEN
    __shared__ int ready;
    unsigned int i = threadIdx.x;
    slots[i] = i < size ? a[i] : 0.0f;
    if (i == 0) {
        ready = 0;
        // Wait until the last thread says the total is ready. The flag is read
        // through a volatile pointer, so every turn of the loop reads it again.
        volatile int* flag = &ready;
        while (*flag == 0) {
        }
        out[0] = total;
    }
    // Every slot is stored before the last thread adds them up.
    __syncthreads();
    if (i == TPB - 1) {
        float sum = 0.0f;
        for (unsigned int k = 0; k < TPB; k++) {
            sum += slots[k];
        }
        total = sum;
        // Tell thread 0 that the total is ready.
        ready = 1;
    }
    // END PUZZLE
}
