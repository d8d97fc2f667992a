// Debugging, case 3: the race that passes. One block of eight threads moves every
// value of a shared array one slot to the left, in place; the last slot becomes 0.
#define TPB 8

extern "C" __global__ void shift_left(float* out, const float* a, unsigned int size) {
    __shared__ float slots[TPB];
    unsigned int i = threadIdx.x;
    slots[i] = i < size ? a[i] : 0.0f;
    __syncthreads();
    // Slot i takes the value of slot i + 1, its right neighbour.
    // BEGIN PUZZLE
    float right = i + 1 < TPB ? slots[i + 1] : 0.0f;
    // Every thread has read its neighbour before any slot changes.
    __syncthreads();
    slots[i] = right;
    // AS GIVEN
    slots[i] = i + 1 < TPB ? slots[i + 1] : 0.0f;
    // END PUZZLE
    if (i < size) {
        out[i] = slots[i];
    }
}
