// Experiments for Puzzle 40 (tp_mlp_one_gpu.py, one GPU, one rank): other
// ways for step 1's overlapped kernel to wait, and registers capped so that
// more of its blocks fit. Not a puzzle, and not a copy of one: the harness
// writes this in front of step 1's own kernel, whose two wait loops become
// calls of wait_at_least and whose signature gains BOUNDS.
//   MIN_BLOCKS n:   __launch_bounds__(256, n), n blocks a multiprocessor
//   POLL_RELAXED 1: spin on relaxed loads (an acquire may invalidate the
//                   multiprocessor's L1, a relaxed load need not), then one
//                   acquire fence once the count is there
//   SLEEP_NS n:     __nanosleep(n) between polls (0: none)

#ifndef POLL_RELAXED
#define POLL_RELAXED 0
#endif
#ifndef SLEEP_NS
#define SLEEP_NS 0
#endif
#ifndef MIN_BLOCKS
#define MIN_BLOCKS 0
#endif
#if MIN_BLOCKS
#define BOUNDS __launch_bounds__(256, MIN_BLOCKS)
#else
#define BOUNDS
#endif

// Waits until `count` reaches `target`; what was released before it is then
// this thread's to read.
template <typename Counter>
__device__ void wait_at_least(Counter count, unsigned int target, cuda::thread_scope scope) {
    if (POLL_RELAXED) {
        while (count.load(cuda::memory_order_relaxed) < target) {
            if (SLEEP_NS) __nanosleep(SLEEP_NS);
        }
        cuda::atomic_thread_fence(cuda::memory_order_acquire, scope);
    } else {
        while (count.load(cuda::memory_order_acquire) < target) {
            if (SLEEP_NS) __nanosleep(SLEEP_NS);
        }
    }
}
