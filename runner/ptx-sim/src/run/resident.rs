//! How many blocks of a launch a GPU keeps running at once: the blocks
//! that may wait on each other. CUDA promises nothing about the order in
//! which blocks start, nor that any two run together (outside a
//! cooperative launch); on a real GPU a block that spins on a flag keeps
//! its SM until the flag is set, and blocks that find no room start only
//! when a running one finishes.
//!
//! The checker takes the GPUs the book was measured on (Hopper's H100
//! and H200 SXM: 132 SMs, each holding at most 2,048 threads, 32 blocks and
//! 228 KiB of shared memory, 1 KiB of it reserved per block), and counts
//! registers as no limit: the count is an upper bound, so a grid it calls
//! too large is too large on those GPUs.

/// SMs on an H100 or H200 SXM.
pub const SMS: u32 = 132;
const THREADS_PER_SM: u32 = 2048;
const BLOCKS_PER_SM: u32 = 32;
const SHARED_PER_SM: u64 = 228 * 1024;
const RESERVED_PER_BLOCK: u64 = 1024;

/// Blocks of `threads` threads (rounded up to whole warps) and `shared`
/// bytes of shared memory that one SM holds at once (at least one).
pub fn per_sm(threads: u32, shared: u64) -> u32 {
    let warps = threads.div_ceil(32).max(1) * 32;
    let by_threads = THREADS_PER_SM / warps;
    let by_shared = SHARED_PER_SM / (shared + RESERVED_PER_BLOCK);
    by_threads
        .min(BLOCKS_PER_SM)
        .min(u32::try_from(by_shared).unwrap_or(u32::MAX))
        .max(1)
}

/// Blocks of that shape the whole GPU holds at once.
pub fn on_gpu(threads: u32, shared: u64) -> u32 {
    SMS * per_sm(threads, shared)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (threads per block, shared bytes per block, blocks per SM).
    #[test]
    fn blocks_per_sm_table() {
        let cases = [
            (1024, 0, 2),
            (256, 0, 8),
            (32, 0, 32),
            (1, 0, 32),
            (100, 0, 16),
            (128, 48 * 1024, 4),
            (128, 100 * 1024, 2),
            (1024, 227 * 1024, 1),
        ];
        for (threads, shared, want) in cases {
            assert_eq!(
                per_sm(threads, shared),
                want,
                "{threads} threads, {shared} B"
            );
        }
        assert_eq!(on_gpu(256, 0), 1056);
    }
}
