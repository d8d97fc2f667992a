// Puzzle 40, the layer's communication alone: the one-shot `all_reduce`
// of tp_mlp.cuh, over a buffer the size of the layer's output. Its time is
// the "communication" the overlapped layer is held against.
// GIVEN WHOLE: measured beside the puzzle, nothing to write
#include "../tp_mlp.cuh"
