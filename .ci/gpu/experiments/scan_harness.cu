// Experiment driver (scan_harness.sh): times scan_variants.cu at 2^28 floats
// with nvcc and CUDA events, without the runner's setup, so that many knob
// settings fit in one session. Every output is checked against a prefix sum
// in double precision (the inputs are quarters, so the float sums are exact).
//   nvcc -O3 -arch=native -std=c++17 -DROWS=8 -o h scan_harness.cu && ./h [GRID]
#include "scan_variants.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char** argv) {
    const unsigned int n = 1u << 28;
    unsigned int tiles = (n + 4 * TILE_QUADS - 1) / (4 * TILE_QUADS);
    unsigned int grid = PERSIST ? (argc > 1 ? atoi(argv[1]) : 1056) : tiles;
    std::vector<float> host(n);
    for (unsigned int i = 0; i < n; i++) host[i] = 0.25f * static_cast<int>((i * 2654435761u) % 33u) - 4.0f;
    float *a, *out;
    unsigned int *status, *counter;
    cudaMalloc(&a, 4ull * n);
    cudaMalloc(&out, 4ull * n);
    cudaMalloc(&status, 8ull * tiles);
    cudaMalloc(&counter, 4);
    cudaMemcpy(a, host.data(), 4ull * n, cudaMemcpyHostToDevice);
    cudaEvent_t start, end;
    cudaEventCreate(&start);
    cudaEventCreate(&end);
    std::vector<float> times;
    for (int run = 0; run < 25; run++) {
        cudaEventRecord(start);
        reset<<<(tiles + TPB - 1) / TPB, TPB>>>(status, counter, tiles);
        scan<<<grid, TPB>>>(out, a, status, counter, n);
        cudaEventRecord(end);
        cudaEventSynchronize(end);
        float ms;
        cudaEventElapsedTime(&ms, start, end);
        if (run >= 5) times.push_back(ms);
    }
    cudaError_t err = cudaGetLastError();
    std::vector<float> got(n);
    cudaMemcpy(got.data(), out, 4ull * n, cudaMemcpyDeviceToHost);
    double sum = 0;
    unsigned int wrong = 0;
    for (unsigned int i = 0; i < n; i++) {
        sum += host[i];
        if (got[i] != static_cast<float>(sum)) wrong++;
    }
    std::sort(times.begin(), times.end());
    float median = times[times.size() / 2];
    printf("median %.4f ms (min %.4f, max %.4f) %.0f GB/s, %u wrong, %s\n", median, times.front(), times.back(),
           8.0 * n / median / 1e6, wrong, cudaGetErrorString(err));
    return wrong != 0;
}
