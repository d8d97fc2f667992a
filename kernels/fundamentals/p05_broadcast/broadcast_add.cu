// Puzzle 5: Broadcast. Two vectors combine into a matrix: out[row][col] = a[col] + b[row].
extern "C" __global__ void broadcast_add(float* out, const float* a, const float* b,
                                         unsigned int size) {
    unsigned int row = threadIdx.y;
    unsigned int col = threadIdx.x;
    // BEGIN PUZZLE (roughly 2 lines)
    if (row < size && col < size) {
        out[row * size + col] = a[col] + b[row];
    }
    // END PUZZLE
}
