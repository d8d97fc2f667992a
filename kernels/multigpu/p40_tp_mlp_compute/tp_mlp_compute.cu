// Puzzle 40, the layer's arithmetic alone: on every rank, `up` then
// `down` of tp_mlp.cuh, and no communication. Its time is the
// "compute" the overlapped layer is held against.
// GIVEN WHOLE: measured beside the puzzle, nothing to write
#include "../tp_mlp.cuh"
