// Puzzle 19, step 3: step 2 with 16-byte accesses. Both tiles are copied with
// vec4 loads, and the a tile is stored transposed, k-major, so that the TM
// values of a an invocation needs for one k lie side by side in workgroup
// memory, like the TN values of b: both are read as vec4s. Sizes must be
// multiples of 4 (a row of a vec4 view must start on a vec4); TM and TN too.
const BM: u32 = 8u;
const BN: u32 = 8u;
const BK: u32 = 4u;
const TM: u32 = 4u;
const TN: u32 = 4u;
const THREADS: u32 = (BM / TM) * (BN / TN);

// The matrices seen as vec4s, four elements of a row each.
@group(0) @binding(0) var<storage, read_write> out: array<vec4<f32>>;
@group(0) @binding(1) var<storage, read> a: array<vec4<f32>>;
@group(0) @binding(2) var<storage, read> b: array<vec4<f32>>;
@group(0) @binding(3) var<uniform> size: u32;

// a_tile[k][m / 4][m % 4] holds a[row0 + m][k0 + k]: transposed, in vec4s.
var<workgroup> a_tile: array<array<vec4<f32>, BM / 4u>, BK>;
var<workgroup> b_tile: array<array<vec4<f32>, BN / 4u>, BK>;

@compute @workgroup_size(BN / TN, BM / TM)
fn sgemm_vec4(
    @builtin(workgroup_id) wid: vec3<u32>,
    @builtin(local_invocation_id) lid: vec3<u32>,
    @builtin(local_invocation_index) tid: u32,
) {
    let row0 = wid.y * BM;
    let col0 = wid.x * BN;
    let tr = lid.y * TM;
    let tc = lid.x * TN;
    // Each row of the patch is TN / 4 vec4 sums: one vec4 multiply-add does four.
    var acc: array<array<vec4<f32>, TN / 4u>, TM>;
    var a_reg: array<vec4<f32>, TM / 4u>;
    var b_reg: array<vec4<f32>, TN / 4u>;
    for (var k0 = 0u; k0 < size; k0 += BK) {
        // BEGIN PUZZLE (roughly 24 lines)
        // The a tile: BM rows of BK / 4 vec4s. A vec4 runs along k, so its
        // four values go to four different rows of the transposed tile.
        for (var i = tid; i < BM * BK / 4u; i += THREADS) {
            let r = i / (BK / 4u);
            let c = i % (BK / 4u) * 4u;
            var v = vec4<f32>(0.0);
            // size % 4 == 0: a vec4 lies either wholly inside a row or wholly past its end.
            if (row0 + r < size && k0 + c < size) {
                v = a[((row0 + r) * size + k0 + c) / 4u];
            }
            a_tile[c][r / 4u][r % 4u] = v.x;
            a_tile[c + 1u][r / 4u][r % 4u] = v.y;
            a_tile[c + 2u][r / 4u][r % 4u] = v.z;
            a_tile[c + 3u][r / 4u][r % 4u] = v.w;
        }
        // The b tile: BK rows of BN / 4 vec4s, stored as they are.
        for (var i = tid; i < BK * BN / 4u; i += THREADS) {
            let r = i / (BN / 4u);
            let c = i % (BN / 4u);
            var v = vec4<f32>(0.0);
            if (k0 + r < size && col0 + c * 4u < size) {
                v = b[((k0 + r) * size + col0) / 4u + c];
            }
            b_tile[r][c] = v;
        }
        // END PUZZLE
        workgroupBarrier();
        for (var k = 0u; k < BK; k++) {
            // Both fragments are contiguous now: TM / 4 + TN / 4 vec4 reads.
            for (var i = 0u; i < TM / 4u; i++) {
                a_reg[i] = a_tile[k][tr / 4u + i];
            }
            for (var j = 0u; j < TN / 4u; j++) {
                b_reg[j] = b_tile[k][tc / 4u + j];
            }
            // The components written out, so that no index into a vector varies.
            for (var i = 0u; i < TM / 4u; i++) {
                let av = a_reg[i];
                for (var j = 0u; j < TN / 4u; j++) {
                    let bv = b_reg[j];
                    acc[4u * i][j] = fma(vec4<f32>(av.x), bv, acc[4u * i][j]);
                    acc[4u * i + 1u][j] = fma(vec4<f32>(av.y), bv, acc[4u * i + 1u][j]);
                    acc[4u * i + 2u][j] = fma(vec4<f32>(av.z), bv, acc[4u * i + 2u][j]);
                    acc[4u * i + 3u][j] = fma(vec4<f32>(av.w), bv, acc[4u * i + 3u][j]);
                }
            }
        }
        workgroupBarrier();
    }
    // Each row of the patch goes out as TN / 4 vec4 stores.
    for (var i = 0u; i < TM; i++) {
        for (var j = 0u; j < TN / 4u; j++) {
            let row = row0 + tr + i;
            let col = col0 + tc + j * 4u;
            if (row < size && col < size) {
                out[(row * size + col) / 4u] = acc[i][j];
            }
        }
    }
}
