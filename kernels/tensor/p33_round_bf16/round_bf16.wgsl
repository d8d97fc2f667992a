// Puzzle 33: rounding a float to BF16 by hand. BF16 keeps a float's sign and
// 8-bit exponent and the top 7 of its 23 mantissa bits: it is the high half
// of the float's 32 bits. Rounding to nearest, ties to even, is an addition
// on those bits followed by cutting off the low half. The result is written
// back as a float (the low half zero) so that it can be read and compared.
// The inputs are finite and well below BF16's largest value, 3.39e38.
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

const TPB: u32 = 64u;

@compute @workgroup_size(TPB)
fn round_bf16(@builtin(global_invocation_id) gid: vec3<u32>) {
    let i = gid.x;
    if (i >= size) {
        return;
    }
    var bits = bitcast<u32>(a[i]);
    // BEGIN PUZZLE (roughly 3 lines)
    // The bit that will be BF16's last: 1 when the kept half is odd.
    let last = (bits >> 16u) & 1u;
    // Below half a unit (0x8000) the sum does not carry into the kept half;
    // above, it does; at exactly half, it carries only when the kept half is
    // odd, which makes it even.
    bits = (bits + 0x7FFFu + last) & 0xFFFF0000u;
    // END PUZZLE
    out[i] = bitcast<f32>(bits);
}
