// Given: Puzzle 35 step 2's swizzle and tensor-core fragments. Steps 3 and
// Puzzle 36 include them too.
#include "address.cuh"

// Chunk c of tile row r is stored at chunk c ^ (r % 8) of that row. A row of
// 8 chunks is 128 bytes, all 32 banks, so the 8 rows one ldmatrix phase reads
// at one chunk (or one copy phase writes) land on 8 different groups of banks.
__device__ __forceinline__ unsigned int swizzle(unsigned int row, unsigned int chunk) {
    return chunk ^ (row % 8);
}

// Four 8 x 8 matrices of 16-bit values from shared memory: lane l names the
// start of row l % 8 of matrix l / 8, and receives in each register two
// neighbouring values of row l / 4 (with .trans: of column l / 4).
__device__ __forceinline__ void ldmatrix_x4(unsigned int (&r)[4], const bf16* at) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(at)));
}

__device__ __forceinline__ void ldmatrix_x4_trans(unsigned int (&r)[4], const bf16* at) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(shared_address(at)));
}

// c += a · b for one 16 x 8 tile of outputs over 16 values of k.
__device__ __forceinline__ void mma_16x8x16(float (&c)[4], const unsigned int (&a)[4],
                                            unsigned int b0, unsigned int b1) {
    asm volatile(
        "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
        "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
        : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}
