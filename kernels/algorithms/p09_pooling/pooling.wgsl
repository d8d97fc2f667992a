// Puzzle 9: Pooling. Each output is the sum of its own input and the two before it.
const TPB: u32 = 8u;
// A window of 3 is the element itself plus the HALO elements just before it.
const HALO: u32 = 2u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

// The workgroup's TPB elements, preceded by the HALO elements that come just
// before it: the windows of its first invocations reach back into them.
var<workgroup> staged: array<f32, HALO + TPB>;

@compute @workgroup_size(8)
fn pooling(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let block_start = wid.x * TPB;
    let global_i = block_start + lid.x;
    let local_i = lid.x;
    // BEGIN PUZZLE (roughly 14 lines)
    // Each invocation stages its own element, shifted right past the halo.
    if (global_i < size) {
        staged[HALO + local_i] = a[global_i];
    }
    // The first HALO invocations also stage the halo. Before the start of the
    // array there is nothing to add, which is the same as adding zeros.
    if (local_i < HALO) {
        var before = 0.0;
        if (block_start + local_i >= HALO) {
            before = a[block_start + local_i - HALO];
        }
        staged[local_i] = before;
    }
    // Every slot must be written before any invocation reads its neighbours'.
    workgroupBarrier();

    // Slots local_i .. local_i + 2 hold a[global_i - 2] .. a[global_i].
    if (global_i < size) {
        out[global_i] = staged[local_i] + staged[local_i + 1u] + staged[local_i + 2u];
    }
    // END PUZZLE
}
