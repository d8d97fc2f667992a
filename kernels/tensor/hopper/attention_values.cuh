// Given: two small helpers of Puzzle 36's kernels, step 1 onwards.

// Minus infinity, the running maximum before any score (NVRTC has no <cmath>).
__device__ __forceinline__ float minus_infinity() {
    return __int_as_float(0xff800000);
}

// Two floats as one register of BF16s, the first in the low half: the order
// of neighbouring columns in a fragment.
__device__ __forceinline__ unsigned int pack_bf16(float lo, float hi) {
    __nv_bfloat162 pair = __floats2bfloat162_rn(lo, hi);
    return *reinterpret_cast<unsigned int*>(&pair);
}
