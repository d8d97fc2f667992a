// Debugging, case 3: the race that passes. One workgroup of eight invocations moves
// every value of a workgroup array one slot to the left, in place; the last slot becomes 0.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

var<workgroup> slots: array<f32, TPB>;

@compute @workgroup_size(TPB)
fn shift_left(@builtin(local_invocation_id) lid: vec3<u32>) {
    let i = lid.x;
    if (i < size) {
        slots[i] = a[i];
    } else {
        slots[i] = 0.0;
    }
    workgroupBarrier();
    // Slot i takes the value of slot i + 1, its right neighbour.
    // BEGIN PUZZLE
    var right = 0.0;
    if (i + 1u < TPB) {
        right = slots[i + 1u];
    }
    // Every invocation has read its neighbour before any slot changes.
    workgroupBarrier();
    slots[i] = right;
    // AS GIVEN
    if (i + 1u < TPB) {
        slots[i] = slots[i + 1u];
    } else {
        slots[i] = 0.0;
    }
    // END PUZZLE
    if (i < size) {
        out[i] = slots[i];
    }
}
