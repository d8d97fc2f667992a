// Puzzle 16, part 4, in WGSL: there is no asynchronous copy into workgroup
// memory, so the next tile is loaded into registers instead. The loads are
// issued before the current tile is computed and used only after it: the
// memory latency overlaps with the work, as with a second buffer.
const TILE: u32 = 256u;
const TAPS: u32 = 5u;
const HALO: u32 = TAPS / 2u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> tile: array<f32, TILE + 2u * HALO>;
var<workgroup> taps: array<f32, TAPS>;

// Slot s of tile k: a[k * TILE - HALO + s], or 0 outside the input or past the last tile.
fn slot(k: u32, s: u32) -> f32 {
    let tiles = (size + TILE - 1u) / TILE;
    let j = k * TILE + s;
    if (k < tiles && s < TILE + 2u * HALO && j >= HALO && j - HALO < size) {
        return a[j - HALO];
    }
    return 0.0;
}

@compute @workgroup_size(256)
fn conv_pipeline(
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
    // This invocation's slots are t and t + TILE (the latter for the first
    // 2 * HALO invocations only). The first tile's values come before the loop.
    var low = slot(wid.x, t);
    var high = slot(wid.x, t + TILE);
    for (var k = wid.x; k < tiles; k += groups.x) {
        tile[t] = low;
        if (t < 2u * HALO) {
            tile[t + TILE] = high;
        }
        workgroupBarrier();
        // The next tile's loads start now and are not used until the next
        // round: they are in flight while this tile is computed.
        low = slot(k + groups.x, t);
        high = slot(k + groups.x, t + TILE);
        let i = k * TILE + t;
        if (i < size) {
            var acc = 0.0;
            for (var k2 = 0u; k2 < TAPS; k2++) {
                acc += tile[t + k2] * taps[k2];
            }
            out[i] = acc;
        }
        workgroupBarrier();
    }
    // END PUZZLE
}
