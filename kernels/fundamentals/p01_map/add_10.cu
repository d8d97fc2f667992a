// Puzzle 1: Map. One thread per element, each adds 10 to its own element.
extern "C" __global__ void add_10(float* out, const float* a) {
    unsigned int i = threadIdx.x;
    // BEGIN PUZZLE (roughly 1 line)
    out[i] = a[i] + 10.0f;
    // END PUZZLE
}
