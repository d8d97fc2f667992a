// Puzzle 16, part 3: a fixed grid of workgroups, each convolving tile after
// tile: load a tile, wait, compute, wait, load the next.
const TILE: u32 = 256u;
const TAPS: u32 = 5u;
const HALO: u32 = TAPS / 2u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> tile: array<f32, TILE + 2u * HALO>;
var<workgroup> taps: array<f32, TAPS>;

@compute @workgroup_size(256)
fn conv_loop(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let t = lid.x;
    let tiles = (size + TILE - 1u) / TILE;
    if (t < TAPS) {
        taps[t] = w[t];
    }

    // BEGIN PUZZLE (roughly 24 lines)
    // Tiles wid.x, wid.x + groups.x, ...: the same for the whole workgroup, so
    // every invocation reaches every barrier.
    for (var k = wid.x; k < tiles; k += groups.x) {
        let start = k * TILE;
        for (var s = t; s < TILE + 2u * HALO; s += TILE) {
            var value = 0.0;
            if (start + s >= HALO && start + s - HALO < size) {
                value = a[start + s - HALO];
            }
            tile[s] = value;
        }
        workgroupBarrier();
        let i = start + t;
        if (i < size) {
            var acc = 0.0;
            for (var k2 = 0u; k2 < TAPS; k2++) {
                acc += tile[t + k2] * taps[k2];
            }
            out[i] = acc;
        }
        // Nobody overwrites the tile while a neighbour still reads it.
        workgroupBarrier();
    }
    // END PUZZLE
}
