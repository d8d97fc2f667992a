// Experiment driver (sgemm_harness.sh): times sgemm_variants.cu and
// cublasSgemm (FP32, TF32 off) in one process on one GPU, so that the ratio
// of the two comes from one run. The inputs are quarters from -2 to 2, so
// every partial sum is exact in FP32 and both products must match exactly.
//   nvcc -O3 -arch=native -std=c++17 -DASYNC=1 -o h sgemm_harness.cu -lcublas && ./h [SIZE]
#include "sgemm_variants.cu"
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <vector>

// Median, min and max of 20 timed launches after 5 untimed ones.
template <typename Launch> static void measure(Launch launch, float* median, float* lo, float* hi) {
    cudaEvent_t start, end;
    cudaEventCreate(&start);
    cudaEventCreate(&end);
    std::vector<float> times;
    for (int run = 0; run < 25; run++) {
        cudaEventRecord(start);
        launch();
        cudaEventRecord(end);
        cudaEventSynchronize(end);
        float ms;
        cudaEventElapsedTime(&ms, start, end);
        if (run >= 5) times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    *median = times[times.size() / 2], *lo = times.front(), *hi = times.back();
}

int main(int argc, char** argv) {
    const unsigned int n = argc > 1 ? atoi(argv[1]) : 4096;
    const size_t count = size_t(n) * n;
    std::vector<float> host(2 * count);
    for (size_t i = 0; i < host.size(); i++) host[i] = 0.25f * static_cast<int>((i * 2654435761u) % 17u) - 2.0f;
    float *a, *b, *ours, *theirs;
    cudaMalloc(&a, 4 * count);
    cudaMalloc(&b, 4 * count);
    cudaMalloc(&ours, 4 * count);
    cudaMalloc(&theirs, 4 * count);
    cudaMemcpy(a, host.data(), 4 * count, cudaMemcpyHostToDevice);
    cudaMemcpy(b, host.data() + count, 4 * count, cudaMemcpyHostToDevice);
    cublasHandle_t handle;
    cublasCreate(&handle);
    cublasSetMathMode(handle, CUBLAS_DEFAULT_MATH);
    const float one = 1.0f, zero = 0.0f;
    float m0, l0, h0, m1, l1, h1;
    // Row-major out = a b is column-major out^T = b^T a^T.
    measure([&] { cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, n, a, n, &zero, theirs, n); }, &m1, &l1, &h1);
    dim3 grid(n / BN, n / BM);
    measure([&] { sgemm<<<grid, THREADS>>>(ours, a, b, n); }, &m0, &l0, &h0);
    cudaError_t err = cudaDeviceSynchronize();
    std::vector<float> got(count), want(count);
    cudaMemcpy(got.data(), ours, 4 * count, cudaMemcpyDeviceToHost);
    cudaMemcpy(want.data(), theirs, 4 * count, cudaMemcpyDeviceToHost);
    size_t wrong = 0;
    for (size_t i = 0; i < count; i++) wrong += got[i] != want[i];
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, sgemm);
    printf("%u: ours %.3f ms (%.3f-%.3f), cuBLAS %.3f ms (%.3f-%.3f), %.1f %% of cuBLAS, %d regs, %zu wrong, %s\n", n,
           m0, l0, h0, m1, l1, h1, 100.0 * m1 / m0, attr.numRegs, wrong, cudaGetErrorString(err));
    return wrong != 0;
}
