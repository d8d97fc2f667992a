// Puzzle 32, step 2: an embedding lookup with the threads along the rows.
// Thread g copies one float4: quad g % (DIM / 4) of token g / (DIM / 4). The
// threads of a warp take consecutive quads of one row (or of two rows, at a
// row's end), so each load of the warp is 512 contiguous bytes.
#define TPB 8
#define DIM 8

extern "C" __global__ void embed_quads(float* out, const float* table, const unsigned int* ids,
                                       unsigned int tokens) {
    const unsigned int quads = DIM / 4;
    size_t g = (size_t)blockIdx.x * TPB + threadIdx.x;
    // BEGIN PUZZLE (roughly 6 lines)
    if (g < (size_t)tokens * quads) {
        size_t t = g / quads, q = g % quads;
        reinterpret_cast<float4*>(out)[g] =
            reinterpret_cast<const float4*>(table)[(size_t)ids[t] * quads + q];
    }
    // END PUZZLE
}
