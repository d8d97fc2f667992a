// Given: `setmaxnreg`, which moves registers between a block's warpgroups
// while it runs. A kernel is compiled for one register count a thread (the
// launch bounds set it: 65,536 / threads); a warpgroup that needs few gives
// some back, and one that needs many takes them. All 128 threads of the
// warpgroup run it together; the count is a multiple of 8 from 24 to 256.
template <int COUNT>
__device__ __forceinline__ void registers_decrease() {
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(COUNT));
}

template <int COUNT>
__device__ __forceinline__ void registers_increase() {
    asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(COUNT));
}
