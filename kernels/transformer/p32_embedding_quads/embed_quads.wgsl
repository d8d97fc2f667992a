// Puzzle 32, step 2: an embedding lookup with the invocations along the rows.
// Invocation g copies one vec4: quad g % (DIM / 4) of token g / (DIM / 4).
// Neighbouring invocations take consecutive quads of one row (or of two rows,
// at a row's end), so their loads are contiguous.
const TPB: u32 = 8u;
const DIM: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> table: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> ids: array<u32>;
@group(0) @binding(3) var<uniform> tokens: u32;

@compute @workgroup_size(TPB)
fn embed_quads(@builtin(global_invocation_id) gid: vec3<u32>) {
    let quads = DIM / 4u;
    let g = gid.x;
    // BEGIN PUZZLE (roughly 5 lines)
    if (g < tokens * quads) {
        let t = g / quads;
        let q = g % quads;
        out[g] = table[ids[t] * quads + q];
    }
    // END PUZZLE
}
