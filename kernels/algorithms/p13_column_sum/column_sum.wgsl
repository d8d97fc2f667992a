// Puzzle 13 (column sum): a workgroup of TPB x TPB invocations sums TPB adjacent columns, TPB row lanes per column.
// A power of two, so that halving always pairs every slot with another.
const TPB: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> batch: u32;
@group(0) @binding(3) var<uniform> size: u32;

// cache[lane][c]: the partial sum of row lane `lane` for the workgroup's column c.
var<workgroup> cache: array<array<f32, TPB>, TPB>;

@compute @workgroup_size(8, 8)
fn column_sum(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // lid.x picks the column, so neighboring invocations read neighboring addresses.
    let col = wid.x * TPB + lid.x;
    let lane = lid.y;

    // BEGIN PUZZLE (roughly 17 lines)
    // Lane l adds rows l, l + TPB, l + 2 TPB, ... of its column.
    var partial = 0.0;
    if (col < size) {
        for (var row = lane; row < batch; row += TPB) {
            partial += a[row * size + col];
        }
    }
    cache[lane][lid.x] = partial;
    workgroupBarrier();

    // The row sum's tree, run along y: each column folds its lanes independently.
    for (var stride = TPB / 2u; stride > 0u; stride /= 2u) {
        if (lane < stride) {
            cache[lane][lid.x] += cache[lane + stride][lid.x];
        }
        workgroupBarrier();
    }

    if (lane == 0u && col < size) {
        out[col] = cache[0][lid.x];
    }
    // END PUZZLE
}
