// Calibration kernels: the device's own ceilings, measured the way the book's
// kernels are timed. Run through wgpu by `runner calibrate`.

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> src: array<vec4<f32>>;
@group(0) @binding(2) var<uniform> count: u32;

// Streaming: 16-byte vectors, grid-stride, so the buffer moves once per
// launch; four loads before four stores keep several requests in flight.
@compute @workgroup_size(256)
fn stream_copy(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let stride = groups.x * 256u;
    var i = gid.x;
    for (; i + 3u * stride < count; i += 4u * stride) {
        let a = src[i];
        let b = src[i + stride];
        let c = src[i + 2u * stride];
        let d = src[i + 3u * stride];
        out[i] = a;
        out[i + stride] = b;
        out[i + 2u * stride] = c;
        out[i + 3u * stride] = d;
    }
    for (; i < count; i += stride) {
        out[i] = src[i];
    }
}

// Reading only: each invocation sums its vectors, grid-stride, four loads in
// flight, and stores one float, a fraction of a percent of the bytes read.
@compute @workgroup_size(256)
fn stream_read(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let stride = groups.x * 256u;
    var s0 = vec4<f32>(0.0);
    var s1 = vec4<f32>(0.0);
    var s2 = vec4<f32>(0.0);
    var s3 = vec4<f32>(0.0);
    var i = gid.x;
    for (; i + 3u * stride < count; i += 4u * stride) {
        s0 += src[i];
        s1 += src[i + stride];
        s2 += src[i + 2u * stride];
        s3 += src[i + 3u * stride];
    }
    for (; i < count; i += stride) {
        s0 += src[i];
    }
    let sum = (s0 + s1) + (s2 + s3);
    out[gid.x / 4u][gid.x % 4u] = (sum.x + sum.y) + (sum.z + sum.w);
}

// Writing only: 16-byte stores, grid-stride, of one value read once.
@compute @workgroup_size(256)
fn stream_write(
    @builtin(global_invocation_id) gid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let stride = groups.x * 256u;
    let value = vec4<f32>(src[0].x);
    for (var i = gid.x; i < count; i += stride) {
        out[i] = value;
    }
}

// Arithmetic: eight independent FMA chains per invocation, four steps of each
// per iteration (32 FMAs, written out: naga bounds every loop with a counter,
// which would otherwise cost as much as the work). The sum is stored so the
// compiler cannot drop the work. `count` is the number of iterations here.
@compute @workgroup_size(256)
fn fma_chains(@builtin(global_invocation_id) gid: vec3<u32>) {
    let x = src[0].x + 1e-7 * f32(gid.x & 1023u);
    var a0 = x; var a1 = x + 1.0; var a2 = x + 2.0; var a3 = x + 3.0;
    var a4 = x + 4.0; var a5 = x + 5.0; var a6 = x + 6.0; var a7 = x + 7.0;
    let m = 0.9999;
    let c = 1e-4;
    for (var k = 0u; k < count; k++) {
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
        a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
        a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
    }
    let sum = ((a0 + a1) + (a2 + a3)) + ((a4 + a5) + (a6 + a7));
    out[gid.x / 4u][gid.x % 4u] = sum;
}

// Launch overhead: a kernel that does nothing, timed like any other.
@compute @workgroup_size(32)
fn empty() {}
