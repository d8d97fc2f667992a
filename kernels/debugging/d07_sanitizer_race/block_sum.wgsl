// Debugging, case 7: what compute-sanitizer sees. One workgroup of 64 invocations
// sums a vector of up to 64 elements: every invocation stores its element in
// workgroup memory, then invocation 0 adds up the 64 slots.
const TPB: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> slots: array<f32, TPB>;

@compute @workgroup_size(TPB)
fn block_sum(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    // Step 1: one element per slot; invocations past the end store 0.
    if (i < size) {
        slots[i] = a[i];
    } else {
        slots[i] = 0.0;
    }
    // BEGIN PUZZLE
    // Every slot is stored before invocation 0 reads any of them.
    workgroupBarrier();
    // AS GIVEN
    // END PUZZLE
    // Step 2: invocation 0 adds up the slots.
    if (i == 0u) {
        var total = 0.0;
        for (var k = 0u; k < TPB; k++) {
            total += slots[k];
        }
        out[0] = total;
    }
}
