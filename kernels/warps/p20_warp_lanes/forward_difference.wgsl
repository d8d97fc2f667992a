// Puzzle 20: Lanes. Every invocation needs the element to its right. Inside a
// subgroup the neighbour already holds it, and a shuffle hands it over; only
// the top lane of each subgroup has no neighbour there and reads memory.
const TPB: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

@compute @workgroup_size(TPB)
fn forward_difference(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
) {
    // The element follows the subgroup layout, so that lane + 1 holds element
    // i + 1 whatever the subgroup size (8 on lavapipe, 32 on NVIDIA, 64 on AMD).
    let i = wid.x * TPB + subgroup * width + lane;
    // The top lane: the subgroup's last, or the workgroup's last invocation
    // where a whole workgroup fits in one subgroup.
    let top = min(width, TPB) - 1u;
    // Invocations past the end hold 0: they still take part in the shuffle.
    var v = 0.0;
    if (i < size) {
        v = a[i];
    }

    // BEGIN PUZZLE (roughly 10 lines)
    // Every invocation of the subgroup reaches the shuffle: it stays outside
    // any `if`. The top lane's result is not defined; it is replaced below.
    var next = subgroupShuffleDown(v, 1u);
    if (lane == top) {
        next = 0.0;
        if (i + 1u < size) {
            next = a[i + 1u];
        }
    }
    if (i < size) {
        out[i] = next - v;
    }
    // END PUZZLE
}
