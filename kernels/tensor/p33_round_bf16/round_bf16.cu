// Puzzle 33: rounding a float to BF16 by hand. BF16 keeps a float's sign and
// 8-bit exponent and the top 7 of its 23 mantissa bits: it is the high half
// of the float's 32 bits. Rounding to nearest, ties to even, is an addition
// on those bits followed by cutting off the low half. The result is written
// back as a float (the low half zero) so that it can be read and compared.
// The inputs are finite and well below BF16's largest value, 3.39e38.
extern "C" __global__ void round_bf16(float* out, const float* a, unsigned int size) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= size) {
        return;
    }
    unsigned int bits = __float_as_uint(a[i]);
    // BEGIN PUZZLE (roughly 3 lines)
    // The bit that will be BF16's last: 1 when the kept half is odd.
    unsigned int last = (bits >> 16) & 1u;
    // Below half a unit (0x8000) the sum does not carry into the kept half;
    // above, it does; at exactly half, it carries only when the kept half is
    // odd, which makes it even.
    bits = (bits + 0x7FFFu + last) & 0xFFFF0000u;
    // END PUZZLE
    out[i] = __uint_as_float(bits);
}
