// Puzzle 3: Guards. Eight threads, four elements: the extra threads must do nothing.
extern "C" __global__ void add_10_guard(float* out, const float* a, unsigned int size) {
    unsigned int i = threadIdx.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (i < size) {
        out[i] = a[i] + 10.0f;
    }
    // END PUZZLE
}
