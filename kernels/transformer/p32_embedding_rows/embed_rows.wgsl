// Puzzle 32, step 1: an embedding lookup, a token an invocation. Invocation
// t copies row ids[t] of the table, DIM floats, to row t of the output.
// Correct, and the way a loop on a CPU would do it; on a GPU the invocations
// of a subgroup each walk their own row, so every load touches as many rows.
// Invocations, so tokens, per workgroup.
const BLOCK_TOKENS: u32 = 8u;
const DIM: u32 = 8u;

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> table: array<f32>;
@group(0) @binding(2) var<storage, read> ids: array<u32>;
@group(0) @binding(3) var<uniform> tokens: u32;

@compute @workgroup_size(BLOCK_TOKENS)
fn embed_rows(@builtin(global_invocation_id) gid: vec3<u32>) {
    let t = gid.x;
    // BEGIN PUZZLE (roughly 7 lines)
    if (t < tokens) {
        let row = ids[t] * DIM;
        for (var d = 0u; d < DIM; d++) {
            out[t * DIM + d] = table[row + d];
        }
    }
    // END PUZZLE
}
