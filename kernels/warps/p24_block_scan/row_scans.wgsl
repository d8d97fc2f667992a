// Puzzle 24: a workgroup-wide prefix sum built from subgroup scans. Each
// workgroup scans one row: subgroups scan their values, subgroup 0 scans the
// subgroups' totals, and every invocation adds the totals before its own.
const TPB: u32 = 128u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> cols: u32;

// One total per subgroup. A WGSL subgroup has at least 4 invocations.
var<workgroup> totals: array<f32, TPB / 4u>;

@compute @workgroup_size(TPB)
fn row_scans(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    let row = wid.y * groups.x + wid.x;
    // Columns follow the lanes: the scan's order is the subgroups' order.
    let t = subgroup * width + lane;
    var v = 0.0;
    if (t < cols) {
        v = a[row * cols + t];
    }

    // BEGIN PUZZLE (roughly 24 lines)
    // 1. Each subgroup scans its own values in one call.
    let sum = subgroupInclusiveAdd(v);
    // 2. The top lane holds the subgroup's total.
    if (lane == width - 1u) {
        totals[subgroup] = sum;
    }
    workgroupBarrier();
    // 3. Subgroup 0 turns the totals into an exclusive scan, in place. With
    //    narrow subgroups there are more totals than lanes: it walks them
    //    `width` at a time, carrying the sum of the batches before.
    if (subgroup == 0u) {
        var carry = 0.0;
        for (var base = 0u; base < subgroups; base += width) {
            let j = base + lane;
            var total = 0.0;
            if (j < subgroups) {
                total = totals[j];
            }
            let before = subgroupExclusiveAdd(total);
            if (j < subgroups) {
                totals[j] = carry + before;
            }
            carry += subgroupAdd(total);
        }
    }
    workgroupBarrier();
    // 4. Every invocation adds what lies before its subgroup.
    if (t < cols) {
        out[row * cols + t] = sum + totals[subgroup];
    }
    // END PUZZLE
}
