// Puzzle 2: Zip. Each thread adds one element of a to the matching element of b.
extern "C" __global__ void add(float* out, const float* a, const float* b) {
    unsigned int i = threadIdx.x;
    // BEGIN PUZZLE (roughly 1 line)
    out[i] = a[i] + b[i];
    // END PUZZLE
}
