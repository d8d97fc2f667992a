//! Named barriers with a thread count: `bar.sync id, count` waits until
//! `count` threads of the block have reached barrier `id` (waiting there, or
//! passing it with `bar.arrive id, count`, which does not wait). They let
//! some warps of a block synchronise without the rest: FlashAttention 3's
//! consumer warpgroups take turns on them while the producer runs on.
//! A `bar.sync` without a count (`__syncthreads()`) is the whole block's,
//! and `run::cohort::block_barrier`'s.
//!
//! Threads are counted one by one, as a warp whose lanes all take part
//! counts on a GPU (the hardware counts a warp's whole width).

use crate::hazard::Knowledge;
use crate::thread::{Stop, ThreadState};
use std::collections::BTreeMap;
use std::sync::Arc;

/// A named barrier's current phase: the threads that arrived without
/// waiting (`bar.arrive`), and what they knew.
#[derive(Debug, Clone, Default)]
pub struct NamedBarrier {
    pub arrived: u32,
    pub gathering: Knowledge,
}

/// `bar.arrive id, count`: one arrival at the barrier's current phase.
pub fn arrive(t: &mut ThreadState, barrier: &mut NamedBarrier) {
    t.release_into(&mut barrier.gathering, t.block_id);
    barrier.arrived += 1;
}

/// Lets through the threads of a block waiting at a named barrier whose
/// phase has its count (those waiting and those that arrived); each knows
/// what every one of them did before. `named` is the block's barriers'
/// phases by id. True where any went on.
pub fn resolve(threads: &mut [ThreadState], named: &mut BTreeMap<u32, NamedBarrier>) -> bool {
    let mut barriers: Vec<(u32, u32)> = threads
        .iter()
        .filter_map(|t| match t.stop {
            Some(Stop::Barrier {
                id,
                count: Some(count),
            }) => Some((id, count)),
            _ => None,
        })
        .collect();
    barriers.sort_unstable();
    barriers.dedup();
    let mut any = false;
    for (id, count) in barriers {
        let waiting: Vec<usize> = (0..threads.len())
            .filter(|&i| {
                threads[i].stop
                    == Some(Stop::Barrier {
                        id,
                        count: Some(count),
                    })
            })
            .collect();
        let barrier = named.entry(id).or_default();
        if (waiting.len() as u32).saturating_add(barrier.arrived) < count {
            continue;
        }
        let mut merged = std::mem::take(&mut barrier.gathering);
        for &i in &waiting {
            let t = &mut threads[i];
            t.release_into(&mut merged, t.block_id);
        }
        // Arrivals past the count belong to the next phase (and keep what
        // they knew with them: more order, never a false race).
        barrier.arrived = (barrier.arrived + waiting.len() as u32).saturating_sub(count);
        if barrier.arrived > 0 {
            barrier.gathering = merged.clone();
        }
        let merged = Arc::new(merged);
        for &i in &waiting {
            let t = &mut threads[i];
            t.pc += 1;
            t.stop = None;
            t.knows = merged.clone();
        }
        any = true;
    }
    any
}
