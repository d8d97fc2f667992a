// Layouts: puzzle 8 again. A small struct describes the workgroup's slice of the vectors.
const TPB: u32 = 4u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<uniform> size: u32;

// Workgroup memory needs no helper: an array of constant length is already
// what the CUDA kernel's static-extent view describes.
var<workgroup> tile: array<f32, TPB>;

// A piece of a vector: where it starts and how many elements it holds. It holds
// numbers only; the same slice serves every buffer laid out like `a`.
struct Slice {
    first: u32,
    len: u32,
}

// Flat index of element i of the slice.
fn at(s: Slice, i: u32) -> u32 {
    return s.first + i;
}

@compute @workgroup_size(4)
fn add_10_shared_view(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
) {
    // The workgroup's slice: TPB elements from its first, clipped at the end of
    // the vector, so the last slice may be shorter than the workgroup.
    let first = wid.x * TPB;
    let mine = Slice(first, min(first + TPB, size) - first);
    // One index for the slice and the tile alike: no global index any more.
    let i = lid.x;

    if (i < mine.len) {
        tile[i] = a[at(mine, i)];
    }
    workgroupBarrier();

    // BEGIN PUZZLE (roughly 3 lines)
    if (i < mine.len) {
        out[at(mine, i)] = tile[i] + 10.0;
    }
    // END PUZZLE
}
