// Given: a shared-memory address as the 32-bit number that PTX's
// shared-memory instructions (cp.async, ldmatrix, mbarrier, the TMA, wgmma's
// descriptors) take, where C++ has a 64-bit generic pointer.
__device__ __forceinline__ unsigned int shared_address(const void* p) {
    return static_cast<unsigned int>(__cvta_generic_to_shared(p));
}
