// Puzzle 28, step 3: the online softmax with one subgroup per row. The
// workgroup owns ROWS_PER_GROUP rows (TPB / 32, a warp each on NVIDIA); its
// subgroups take them in turn, since a subgroup's width is the device's
// choice (4 to 128).
const TPB: u32 = 64u;
const ROWS_PER_GROUP: u32 = TPB / 32u;
const LOWEST: f32 = -3.402823466e38;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> rows: u32;
@group(0) @binding(3) var<uniform> cols: u32;

@compute @workgroup_size(TPB)
fn softmax_warp(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(subgroup_invocation_id) lane: u32,
    @builtin(subgroup_size) width: u32,
    @builtin(subgroup_id) subgroup: u32,
    @builtin(num_subgroups) subgroups: u32,
) {
    for (var r = subgroup; r < ROWS_PER_GROUP; r += subgroups) {
        let row = wid.x * ROWS_PER_GROUP + r;
        // The whole subgroup skips together, so subgroupMax sees every lane.
        if (row >= rows) {
            break;
        }
        let start = row * cols;

        // BEGIN PUZZLE (roughly 18 lines)
        var largest = LOWEST;
        var sum = 0.0;
        for (var j = lane; j < cols; j += width) {
            let v = a[start + j];
            if (v > largest) {
                sum = sum * exp(largest - v) + 1.0;
                largest = v;
            } else {
                sum += exp(v - largest);
            }
        }
        let row_largest = subgroupMax(largest);
        let row_sum = subgroupAdd(sum * exp(largest - row_largest));
        for (var j = lane; j < cols; j += width) {
            out[start + j] = exp(a[start + j] - row_largest) / row_sum;
        }
        // END PUZZLE
    }
}
