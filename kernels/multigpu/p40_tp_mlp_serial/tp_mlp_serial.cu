// Puzzle 40, the layer done serially: on every rank `up`, `down`, then the
// one-shot `all_reduce` of tp_mlp.cuh. The links idle while the GEMMs run,
// and the multiprocessors wait while the all-reduce does.
// GIVEN WHOLE: measured beside the puzzle, nothing to write
#include "../tp_mlp.cuh"
