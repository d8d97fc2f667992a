// Given: Hopper's wgmma on FP8 inputs (Puzzle 35, step 7). Step 4's
// instruction with two differences. One instruction covers k = 32 values,
// which in FP8 are the same 32 bytes that k = 16 BF16 values are; and FP8
// has no transposed form: both a and b must be K-major, k running along
// their 128-byte rows, so b is stored as b's transpose (n rows of k). The
// descriptor, fence, commit and wait are step 4's (wgmma.cuh).

// A descriptor holds a shared-memory address and two distances in bytes:
// the element type does not enter it, so an FP8 tile's is made as a BF16
// tile's is.
__device__ __forceinline__ unsigned long long descriptor(const unsigned char* start,
                                                         unsigned int leading,
                                                         unsigned int stride) {
    return descriptor(reinterpret_cast<const bf16*>(start), leading, stride);
}

// Eight accumulators of d as read-write operands of the asm below.
#define WGMMA_D8(i)                                                                    \
    "+f"(d[i]), "+f"(d[i + 1]), "+f"(d[i + 2]), "+f"(d[i + 3]), "+f"(d[i + 4]),       \
        "+f"(d[i + 5]), "+f"(d[i + 6]), "+f"(d[i + 7])

// Given: d += a · b for the warpgroup's 64 x 128 tile over 32 values of k,
// e4m3 a and b read by the tensor cores from shared memory, both K-major.
__device__ __forceinline__ void wgmma_fp8_128(float (&d)[64], unsigned long long a_desc,
                                            unsigned long long b_desc) {
    asm volatile(
        "{\n .reg .pred accumulate;\n setp.ne.b32 accumulate, 1, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n128k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, "
        "%8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, "
        "%40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, "
        "%56, %57, %58, %59, %60, %61, %62, %63"
        "}, %64, %65, accumulate, 1, 1;\n}"
        : WGMMA_D8(0),
          WGMMA_D8(8),
          WGMMA_D8(16),
          WGMMA_D8(24),
          WGMMA_D8(32),
          WGMMA_D8(40),
          WGMMA_D8(48),
          WGMMA_D8(56)
        : "l"(a_desc), "l"(b_desc));
}

// Given: d += a · b for the warpgroup's 64 x 256 tile over 32 values of k,
// e4m3 a and b read by the tensor cores from shared memory, both K-major.
__device__ __forceinline__ void wgmma_fp8_256(float (&d)[128], unsigned long long a_desc,
                                            unsigned long long b_desc) {
    asm volatile(
        "{\n .reg .pred accumulate;\n setp.ne.b32 accumulate, 1, 0;\n"
        " wgmma.mma_async.sync.aligned.m64n256k32.f32.e4m3.e4m3 {"
        "%0, %1, %2, %3, %4, %5, %6, %7, "
        "%8, %9, %10, %11, %12, %13, %14, %15, "
        "%16, %17, %18, %19, %20, %21, %22, %23, "
        "%24, %25, %26, %27, %28, %29, %30, %31, "
        "%32, %33, %34, %35, %36, %37, %38, %39, "
        "%40, %41, %42, %43, %44, %45, %46, %47, "
        "%48, %49, %50, %51, %52, %53, %54, %55, "
        "%56, %57, %58, %59, %60, %61, %62, %63, "
        "%64, %65, %66, %67, %68, %69, %70, %71, "
        "%72, %73, %74, %75, %76, %77, %78, %79, "
        "%80, %81, %82, %83, %84, %85, %86, %87, "
        "%88, %89, %90, %91, %92, %93, %94, %95, "
        "%96, %97, %98, %99, %100, %101, %102, %103, "
        "%104, %105, %106, %107, %108, %109, %110, %111, "
        "%112, %113, %114, %115, %116, %117, %118, %119, "
        "%120, %121, %122, %123, %124, %125, %126, %127"
        "}, %128, %129, accumulate, 1, 1;\n}"
        : WGMMA_D8(0),
          WGMMA_D8(8),
          WGMMA_D8(16),
          WGMMA_D8(24),
          WGMMA_D8(32),
          WGMMA_D8(40),
          WGMMA_D8(48),
          WGMMA_D8(56),
          WGMMA_D8(64),
          WGMMA_D8(72),
          WGMMA_D8(80),
          WGMMA_D8(88),
          WGMMA_D8(96),
          WGMMA_D8(104),
          WGMMA_D8(112),
          WGMMA_D8(120)
        : "l"(a_desc), "l"(b_desc));
}

// One warpgroup's accumulators: a 64 x BN tile of out, BN / 2 floats a thread.
#define ACC (BN / 2)

__device__ __forceinline__ void wgmma_fp8_tile(float (&acc)[ACC], unsigned long long a_desc,
                                               unsigned long long b_desc) {
#if BN == 256
    wgmma_fp8_256(acc, a_desc, b_desc);
#else
    wgmma_fp8_128(acc, a_desc, b_desc);
#endif
}
