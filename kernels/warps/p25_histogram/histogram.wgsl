// Puzzle 25: a histogram in two dispatches. Each workgroup counts its elements
// into bins in workgroup memory, with atomic additions; one workgroup then
// adds the workgroups' counts and scans them, so that starts[b] says where
// bin b's elements would begin in a copy of the input sorted by bin.
const TPB: u32 = 128u;
const BINS: u32 = 32u;

@group(0) @binding(0) var<storage, read_write> counts: array<u32>;
@group(0) @binding(1) var<storage, read_write> starts: array<u32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<storage, read_write> partials: array<u32>;
@group(0) @binding(4) var<uniform> size: u32;
@group(0) @binding(5) var<uniform> blocks: u32;

var<workgroup> bins: array<atomic<u32>, BINS>;
// One total per subgroup of the second dispatch (subgroups have at least 4 lanes).
var<workgroup> totals: array<u32, BINS / 4u>;

// BINS equal bins over [-4, 4): values below fall in the first, from 4 up in the last.
fn bin_of(x: f32) -> u32 {
    let scaled = (x + 4.0) * (f32(BINS) / 8.0);
    return min(u32(max(scaled, 0.0)), BINS - 1u);
}

@compute @workgroup_size(TPB)
fn block_histograms(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    let t = lid.x;
    let i = wid.x * TPB + t;

    // BEGIN PUZZLE (roughly 13 lines)
    // WGSL zeroes workgroup memory at the start, but the clearing is cheap
    // and makes the kernel right in any language.
    for (var b = t; b < BINS; b += TPB) {
        atomicStore(&bins[b], 0u);
    }
    workgroupBarrier();
    // Many invocations may hit one bin at once: the read, the addition and
    // the write must happen as one step, or counts are lost.
    if (i < size) {
        atomicAdd(&bins[bin_of(a[i])], 1u);
    }
    workgroupBarrier();
    for (var b = t; b < BINS; b += TPB) {
        partials[wid.x * BINS + b] = atomicLoad(&bins[b]);
    }
    // END PUZZLE
}

// Dispatch 2, given: one workgroup of BINS invocations, one per bin. Each adds
// its bin over the workgroups, then puzzle 24's scan, exclusive, turns the
// counts into starts.
@compute @workgroup_size(BINS)
fn bin_starts(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_id) subgroup: u32,
) {
    let b = lid.x;
    var count = 0u;
    for (var k = 0u; k < blocks; k++) {
        count += partials[k * BINS + b];
    }
    counts[b] = count;
    // The exclusive scan inside the subgroup, and the subgroup's total.
    let before_in_subgroup = subgroupExclusiveAdd(count);
    let total = subgroupAdd(count);
    if (lane == 0u) {
        totals[subgroup] = total;
    }
    workgroupBarrier();
    var before = 0u;
    for (var s = 0u; s < subgroup; s++) {
        before += totals[s];
    }
    starts[b] = before + before_in_subgroup;
}
