// An independent timer for `runner bench`: the same CUDA source, compiled by
// nvcc instead of NVRTC, launched with the CUDA runtime instead of cudarc, and
// timed with the runtime's events. Prints the median of 50 samples in ms.
//   matmul_tiled SIZE    kernels/algorithms/p14_matmul_tiled/matmul_tiled.cu (TPB 3 tiles)
//   stream_copy FLOATS   runner/engine/src/calibrate/ceilings.cu
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(call) do { cudaError_t e = (call); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #call, cudaGetErrorString(e)); std::exit(1); } } while (0)

template <typename Launch>
static double median_ms(Launch launch) {
    cudaEvent_t start, end;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&end));
    for (int i = 0; i < 5; ++i) launch();
    CHECK(cudaDeviceSynchronize());
    std::vector<float> samples;
    for (int i = 0; i < 50; ++i) {
        CHECK(cudaEventRecord(start));
        launch();
        CHECK(cudaEventRecord(end));
        CHECK(cudaEventSynchronize(end));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, start, end));
        samples.push_back(ms);
    }
    std::sort(samples.begin(), samples.end());
    return 0.5 * (samples[24] + samples[25]);
}

static float* device_buffer(size_t n, float value) {
    std::vector<float> host(n, value);
    float* d = nullptr;
    CHECK(cudaMalloc(&d, n * sizeof(float)));
    CHECK(cudaMemcpy(d, host.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: %s matmul_tiled SIZE | stream_copy FLOATS\n", argv[0]);
        return 2;
    }
    unsigned int n = (unsigned int)std::strtoul(argv[2], nullptr, 10);
    double ms = 0;
    if (std::strcmp(argv[1], "matmul_tiled") == 0) {
        float* out = device_buffer((size_t)n * n, 0.0f);
        float* a = device_buffer((size_t)n * n, 0.25f);
        float* b = device_buffer((size_t)n * n, 0.5f);
        dim3 block(3, 3), grid((n + 2) / 3, (n + 2) / 3);
        ms = median_ms([&] { matmul_tiled<<<grid, block>>>(out, a, b, n); });
    } else if (std::strcmp(argv[1], "stream_copy") == 0) {
        float* out = device_buffer(n, 0.0f);
        float* in = device_buffer(n, 1.0f);
        ms = median_ms([&] { stream_copy<<<4096, 256>>>(out, in, n / 4); });
    } else {
        std::fprintf(stderr, "unknown case %s\n", argv[1]);
        return 2;
    }
    CHECK(cudaGetLastError());
    std::printf("%.6f\n", ms);
    return 0;
}
