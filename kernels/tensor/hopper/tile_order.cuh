// Given: the order in which a persistent kernel takes the tiles of out
// (Puzzle 35, steps 7 and 8): step 5's walk, GROUP rows of tiles down each
// column, so that the tiles of a and b that the running blocks read stay
// small enough for L2. The kernel defines GROUP first.

__device__ __forceinline__ void tile_at(unsigned int id, unsigned int rows, unsigned int cols,
                                        unsigned int& tile_row, unsigned int& tile_col) {
    unsigned int per_group = GROUP * cols;
    unsigned int first_row = id / per_group * GROUP;
    unsigned int left = rows - first_row;
    unsigned int group_rows = GROUP < left ? GROUP : left;
    tile_row = first_row + id % per_group % group_rows;
    tile_col = id % per_group / group_rows;
}
