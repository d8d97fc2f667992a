// Puzzle 16, part 1: a 1D convolution, one tile per workgroup, loaded the
// ordinary way. Each workgroup stages its TILE inputs plus a halo of HALO on
// each side.
const TILE: u32 = 256u;
const TAPS: u32 = 5u;
const HALO: u32 = TAPS / 2u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> w: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

// Slot s of the tile holds a[start - HALO + s].
var<workgroup> tile: array<f32, TILE + 2u * HALO>;
var<workgroup> taps: array<f32, TAPS>;

// out[i] = a[i - 2] * w[0] + ... + a[i + 2] * w[4], with zeros outside the
// input. The grid has rows (wid.y): WGSL allows at most 65,535 workgroups along
// one axis.
@compute @workgroup_size(256)
fn conv_tiles(
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(num_workgroups) groups: vec3<u32>,
) {
    let t = lid.x;
    let start = (wid.y * groups.x + wid.x) * TILE;

    // BEGIN PUZZLE (roughly 22 lines)
    // TILE + 2 * HALO slots and TILE invocations: the first 2 * HALO take a
    // second slot. Outside the input, a slot holds 0. (j is computed without
    // going below zero: u32 has no negative values.)
    for (var s = t; s < TILE + 2u * HALO; s += TILE) {
        var value = 0.0;
        if (start + s >= HALO && start + s - HALO < size) {
            value = a[start + s - HALO];
        }
        tile[s] = value;
    }
    if (t < TAPS) {
        taps[t] = w[t];
    }
    workgroupBarrier();
    let i = start + t;
    if (i < size) {
        var acc = 0.0;
        for (var k = 0u; k < TAPS; k++) {
            acc += tile[t + k] * taps[k];
        }
        out[i] = acc;
    }
    // END PUZZLE
}
