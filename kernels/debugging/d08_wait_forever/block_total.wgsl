// Debugging, case 8: the kernel that never ends. One workgroup of 32 invocations
// sums a vector of up to 32 elements: the last invocation adds up the workgroup's
// slots, and invocation 0 writes the total out.
const TPB: u32 = 32u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> slots: array<f32, TPB>;
var<workgroup> total: f32;
// BEGIN PUZZLE

@compute @workgroup_size(TPB)
fn block_total(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    if (i < size) {
        slots[i] = a[i];
    } else {
        slots[i] = 0.0;
    }
    // Every slot is stored before the last invocation adds them up.
    workgroupBarrier();
    if (i == TPB - 1u) {
        var sum = 0.0;
        for (var k = 0u; k < TPB; k++) {
            sum += slots[k];
        }
        total = sum;
    }
    // The total is stored before invocation 0 reads it.
    workgroupBarrier();
    if (i == 0u) {
        out[0] = total;
    }
    // AS GIVEN
var<workgroup> ready: u32;

@compute @workgroup_size(TPB)
fn block_total(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    if (i < size) {
        slots[i] = a[i];
    } else {
        slots[i] = 0.0;
    }
    if (i == 0u) {
        ready = 0u;
        // Wait until the last invocation says the total is ready.
        while (ready == 0u) {
        }
        out[0] = total;
    }
    // Every slot is stored before the last invocation adds them up.
    workgroupBarrier();
    if (i == TPB - 1u) {
        var sum = 0.0;
        for (var k = 0u; k < TPB; k++) {
            sum += slots[k];
        }
        total = sum;
        // Tell invocation 0 that the total is ready.
        ready = 1u;
    }
    // END PUZZLE
}
