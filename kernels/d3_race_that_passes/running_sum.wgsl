// Debugging, case 3: the race that passes. One workgroup of eight invocations
// computes running sums in workgroup memory, doubling the reach at each step.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> sums: array<f32, TPB>;

@compute @workgroup_size(TPB)
fn running_sum(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    if (i < size) {
        sums[i] = a[i];
    } else {
        sums[i] = 0.0;
    }
    workgroupBarrier();
    // After the steps of reach 1, 2 and 4, slot i holds a[0] + ... + a[i].
    for (var reach = 1u; reach < TPB; reach *= 2u) {
        // BEGIN PUZZLE
        var left = 0.0;
        if (i >= reach) {
            left = sums[i - reach];
        }
        // Every invocation has read its value before any slot changes.
        workgroupBarrier();
        sums[i] += left;
        workgroupBarrier();
        // AS GIVEN
        if (i >= reach) {
            sums[i] += sums[i - reach];
        }
        workgroupBarrier();
        // END PUZZLE
    }
    if (i < size) {
        out[i] = sums[i];
    }
}
