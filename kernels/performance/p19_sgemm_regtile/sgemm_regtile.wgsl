// Puzzle 19, step 2: register tiling. A workgroup owns a BM x BN tile of out
// and walks the k dimension BK columns of a (rows of b) at a time. Each of its
// (BM / TM) x (BN / TN) invocations computes a TM x TN patch of the tile in
// registers: per k it reads TM values of a and TN values of b from workgroup
// memory and does TM * TN multiply-adds with them (an outer product).
const BM: u32 = 8u;
const BN: u32 = 8u;
const BK: u32 = 4u;
const TM: u32 = 2u;
const TN: u32 = 2u;
const THREADS: u32 = (BM / TM) * (BN / TN);

@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<uniform> size: u32;

var<workgroup> a_tile: array<array<f32, BK>, BM>;
var<workgroup> b_tile: array<array<f32, BN>, BK>;

@compute @workgroup_size(BN / TN, BM / TM)
fn sgemm_regtile(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) tid: u32,
) {
    // The workgroup tile's corner in out, and this invocation's patch within it.
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let tr = lid.y * TM;
    let tc = lid.x * TN;
    // Function-scope arrays with constant sizes: the driver keeps them in
    // registers once its compiler has unrolled the loops that index them.
    var acc: array<array<f32, TN>, TM>;
    var a_reg: array<f32, TM>;
    var b_reg: array<f32, TN>;
    for (var k0 = 0u; k0 < size; k0 += BK) {
        // The workgroup copies both tiles, THREADS elements per pass, zeros past the edges.
        for (var i = tid; i < BM * BK; i += THREADS) {
            let r = i / BK;
            let c = i % BK;
            var v = 0.0;
            if (row0 + r < size && k0 + c < size) {
                v = a[(row0 + r) * size + k0 + c];
            }
            a_tile[r][c] = v;
        }
        for (var i = tid; i < BK * BN; i += THREADS) {
            let r = i / BN;
            let c = i % BN;
            var v = 0.0;
            if (k0 + r < size && col0 + c < size) {
                v = b[(k0 + r) * size + col0 + c];
            }
            b_tile[r][c] = v;
        }
        workgroupBarrier();
        // BEGIN PUZZLE (roughly 15 lines)
        for (var k = 0u; k < BK; k++) {
            // TM + TN workgroup-memory reads per k...
            for (var i = 0u; i < TM; i++) {
                a_reg[i] = a_tile[tr + i][k];
            }
            for (var j = 0u; j < TN; j++) {
                b_reg[j] = b_tile[k][tc + j];
            }
            // ...feed TM * TN multiply-adds.
            for (var i = 0u; i < TM; i++) {
                for (var j = 0u; j < TN; j++) {
                    acc[i][j] += a_reg[i] * b_reg[j];
                }
            }
        }
        // END PUZZLE
        workgroupBarrier();
    }
    for (var i = 0u; i < TM; i++) {
        for (var j = 0u; j < TN; j++) {
            let row = row0 + tr + i;
            let col = col0 + tc + j;
            if (row < size && col < size) {
                out[row * size + col] = acc[i][j];
            }
        }
    }
}
