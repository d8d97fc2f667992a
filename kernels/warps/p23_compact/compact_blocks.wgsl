// Puzzle 23: stream compaction. Each workgroup keeps the positive elements of
// its TPB inputs, in order, at the start of its row of `out`, fills the rest of
// the row with zeros, and writes how many it kept to `counts`.
const TPB: u32 = 64u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read_write> counts: array<u32>;
@group(0) @binding(2) var<storage, read> a: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

// One count per subgroup. A WGSL subgroup has at least 4 invocations.
var<workgroup> subgroup_counts: array<u32, TPB / 4u>;

@compute @workgroup_size(TPB)
fn compact_blocks(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    // Elements follow the lanes, so that the ballot's bit order is theirs.
    let t = subgroup * width + lane;
    let i = wid.x * TPB + t;
    var v = 0.0;
    if (i < size) {
        v = a[i];
    }
    // Past the end, v is 0 and not kept.
    let keep = v > 0.0;
    let row = wid.x * TPB;

    // BEGIN PUZZLE (roughly 32 lines)
    // One vote per lane, in 128 bits: lane l is bit l % 32 of word l / 32
    // (a subgroup may have up to 128 lanes).
    let kept = subgroupBallot(keep);
    // The lanes below this one that keep: whole words below this lane's
    // word, then the low bits of its own word.
    var rank = 0u;
    var count = 0u;
    for (var w = 0u; w < 4u; w++) {
        let bits = kept[w];
        count += countOneBits(bits);
        if (w < lane / 32u) {
            rank += countOneBits(bits);
        } else if (w == lane / 32u) {
            rank += countOneBits(bits & ((1u << (lane % 32u)) - 1u));
        }
    }
    if (lane == 0u) {
        subgroup_counts[subgroup] = count;
    }
    workgroupBarrier();
    // What the subgroups before this one keep goes first.
    var before = 0u;
    var total = 0u;
    for (var s = 0u; s < subgroups; s++) {
        if (s < subgroup) {
            before += subgroup_counts[s];
        }
        total += subgroup_counts[s];
    }
    if (keep) {
        out[row + before + rank] = v;
    }
    if (t >= total) {
        out[row + t] = 0.0;
    }
    if (t == 0u) {
        counts[wid.x] = total;
    }
    // END PUZZLE
}
