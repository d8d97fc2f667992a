// Puzzle 18, step 1: an inclusive scan of any length in three dispatches over a
// fixed grid. Each workgroup owns a run of whole tiles (its chunk): dispatch 1
// sums every chunk, dispatch 2 turns the sums into offsets, dispatch 3 scans
// every chunk again, starting from its offset.
const TPB: u32 = 64u;
// A tile is four rows of TPB vec4s (16 * TPB floats). Invocation t holds the
// t-th vec4 of every row, so each of its four loads is coalesced.
const TILE_QUADS: u32 = 4u * TPB;
// Dispatch 2 has a single workgroup, and a narrow one: the partial sums are
// few, and the CPU checker checks it faster.
const TPB_PARTIALS: u32 = 32u;

// The data seen as vec4s: WGSL cannot view one buffer as both f32 and
// vec4<f32>, so this version takes sizes that are multiples of 4.
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
// One sum per workgroup after dispatch 1; its exclusive offset after dispatch 2.
@group(0) @binding(2) var<storage, read_write> partials: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;
@group(0) @binding(4) var<uniform> count: u32;

// One slot per subgroup; sized for the smallest subgroup there can be, 1.
var<workgroup> group_sums: array<vec4<f32>, TPB>;

// What scan_rows returns for each of the four rows (one per component).
struct Rows {
    // The sum of the row's vec4s before this invocation's.
    before: vec4<f32>,
    // The sum of the whole row.
    total: vec4<f32>,
}

fn lanes_sum(v: vec4<f32>) -> f32 {
    return (v.x + v.y) + (v.z + v.w);
}

// The inclusive scan of one vec4, its elements in order.
fn lanes_scan(v: vec4<f32>) -> vec4<f32> {
    let xy = v.x + v.y;
    return vec4<f32>(v.x, xy, xy + v.z, xy + v.z + v.w);
}

// The vec4 at index q, or zeros past the end.
fn load(q: u32) -> vec4<f32> {
    if (q < size / 4u) {
        return a[q];
    }
    return vec4<f32>(0.0);
}

// Given: a workgroup-wide exclusive scan of `s`, the four rows at once. A
// subgroup scans in registers, one slot per subgroup goes through workgroup
// memory, and every invocation adds up the slots before its own. The
// second barrier lets the next call overwrite the slots.
fn scan_rows(s: vec4<f32>, lane: u32, width: u32, subgroup: u32, subgroups: u32) -> Rows {
    let within = subgroupExclusiveAdd(s);
    if (lane == width - 1u) {
        group_sums[subgroup] = within + s;
    }
    workgroupBarrier();
    var rows = Rows(within, vec4<f32>(0.0));
    for (var j = 0u; j < subgroups; j++) {
        let g = group_sums[j];
        if (j < subgroup) {
            rows.before += g;
        }
        rows.total += g;
    }
    workgroupBarrier();
    return rows;
}

// The tiles of a workgroup's chunk: tiles * g / groups up to tiles * (g + 1) /
// groups, so that chunks differ by one tile at most.
fn chunk(g: u32, groups: u32) -> vec2<u32> {
    let tiles = (size / 4u + TILE_QUADS - 1u) / TILE_QUADS;
    return vec2<u32>(g * tiles / groups, (g + 1u) * tiles / groups);
}

// Dispatch 1, given: the sum of each workgroup's chunk, as in puzzle 17.
@compute @workgroup_size(TPB)
fn chunk_sums(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    let tiles = chunk(wid.x, groups.x);
    var sums = vec4<f32>(0.0);
    for (var tile = tiles.x; tile < tiles.y; tile++) {
        let q = tile * TILE_QUADS + lid.x;
        // Four loads that do not depend on each other, all in flight at once.
        let v0 = load(q);
        let v1 = load(q + TPB);
        let v2 = load(q + 2u * TPB);
        let v3 = load(q + 3u * TPB);
        sums += vec4<f32>(lanes_sum(v0), lanes_sum(v1), lanes_sum(v2), lanes_sum(v3));
    }
    // Puzzle 17's workgroup sum: a subgroup sum, then one slot per subgroup.
    let sum = subgroupAdd(lanes_sum(sums));
    if (lane == 0u) {
        group_sums[subgroup] = vec4<f32>(sum, 0.0, 0.0, 0.0);
    }
    workgroupBarrier();
    if (lid.x == 0u) {
        var total = 0.0;
        for (var j = 0u; j < subgroups; j++) {
            total += group_sums[j].x;
        }
        partials[wid.x] = total;
    }
}

// Dispatch 2, given: one workgroup replaces the `count` sums by their
// exclusive scan, TPB_PARTIALS at a time, carrying the total from one batch to the next.
@compute @workgroup_size(TPB_PARTIALS)
fn scan_partials(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    var carry = 0.0;
    for (var base = 0u; base < count; base += TPB_PARTIALS) {
        let j = base + lid.x;
        var v = 0.0;
        if (j < count) {
            v = partials[j];
        }
        // Only the first component is used.
        let rows = scan_rows(vec4<f32>(v, 0.0, 0.0, 0.0), lane, width, subgroup, subgroups);
        if (j < count) {
            partials[j] = carry + rows.before.x;
        }
        carry += rows.total.x;
    }
}

// Dispatch 3: each workgroup scans its chunk again, tile by tile, starting
// from its offset.
@compute @workgroup_size(TPB)
fn scan_chunks(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    let tiles = chunk(wid.x, groups.x);
    let quads = size / 4u;
    // The sum of every element before this chunk.
    var carry = partials[wid.x];
    for (var tile = tiles.x; tile < tiles.y; tile++) {
        let q = tile * TILE_QUADS + lid.x;
        let v0 = load(q);
        let v1 = load(q + TPB);
        let v2 = load(q + 2u * TPB);
        let v3 = load(q + 3u * TPB);
        let s = vec4<f32>(lanes_sum(v0), lanes_sum(v1), lanes_sum(v2), lanes_sum(v3));
        let rows = scan_rows(s, lane, width, subgroup, subgroups);

        // BEGIN PUZZLE (roughly 18 lines)
        // Row r of the tile starts after rows 0 to r - 1; within it, this
        // invocation's vec4 starts after the row's vec4s before it.
        let t = rows.total;
        let start = carry + vec4<f32>(0.0, t.x, t.x + t.y, t.x + t.y + t.z) + rows.before;
        if (q < quads) {
            out[q] = start.x + lanes_scan(v0);
        }
        if (q + TPB < quads) {
            out[q + TPB] = start.y + lanes_scan(v1);
        }
        if (q + 2u * TPB < quads) {
            out[q + 2u * TPB] = start.z + lanes_scan(v2);
        }
        if (q + 3u * TPB < quads) {
            out[q + 3u * TPB] = start.w + lanes_scan(v3);
        }
        // The next tile starts after this whole one.
        carry += lanes_sum(t);
        // END PUZZLE
    }
}
