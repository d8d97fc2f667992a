// Warps 1 and 2 store a value a thread in shared memory and arrive at named
// barrier 1 without waiting; warps 3 and 4 wait there (128 threads in all)
// and read the values. Warp 0 takes no part. NAMED_COUNT and ARRIVE are set
// per case: a count no phase reaches hangs; producers that skip the barrier
// race with the readers.
#ifndef NAMED_COUNT
#define NAMED_COUNT 128
#endif
#ifndef ARRIVE
#define ARRIVE 1
#endif
extern "C" __global__ void handoff(float* out, const float* a) {
    __shared__ float slot[64];
    unsigned int warp = threadIdx.x / 32;
    if (warp == 1 || warp == 2) {
        slot[threadIdx.x - 32] = a[threadIdx.x - 32] * 2.0f;
        if (ARRIVE) {
            asm volatile("bar.arrive 1, %0;" ::"n"(NAMED_COUNT) : "memory");
        }
    } else if (warp == 3 || warp == 4) {
        asm volatile("bar.sync 1, %0;" ::"n"(NAMED_COUNT) : "memory");
        out[threadIdx.x - 96] = slot[threadIdx.x - 96];
    }
}
