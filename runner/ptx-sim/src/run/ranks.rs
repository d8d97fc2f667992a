//! A run of several ranks (GPUs that reach each other's memory). A launch
//! whose rank is more than 0 runs together with the launches before it,
//! back to the last one of rank 0: one step. Every block of every rank of a
//! step runs at once, in one cohort (as GPUs with enough multiprocessors
//! run them), so a rank can wait for a flag that a peer sets; a kernel may
//! wait only for peers' kernels of its own step.
//!
//! The buffers are the run's, in one address space: a peer's buffer is
//! another region, reached through a table of addresses passed by value
//! ([`Param::Pointers`]). Each rank has its own parameters. Threads and
//! blocks are numbered across the whole run, and the race check's memory
//! and what releases published are kept from step to step, so that
//! `hazard` can order steps: a rank's own in stream order, another rank's
//! only through a flag released and acquired at system scope. The whole
//! run is made twice ([`RUNS`]), so that what orders one run before the
//! next is checked as well.

use crate::exec::world::World;
use crate::hazard::Shadow;
use crate::launch::{Config, Error, Launch, Param};
use crate::parse::module::Module;
use crate::run::cohort::{self, Rng};
use crate::thread::Origin;
use std::collections::{BTreeSet, HashMap};
use std::ops::Range;
use std::sync::Arc;

/// Runs `launches`, some of rank more than 0, step by step.
pub fn run_steps(
    module: &Module,
    launches: &[Launch],
    w: &mut World,
    config: &Config,
    deadline: gpu_hazard::Deadline,
    rng: &mut Rng,
) -> Result<(), Error> {
    let steps = steps(launches);
    check(module, launches, &steps)?;
    w.ranked = true;
    for run in 0..RUNS {
        for (s, range) in steps.iter().enumerate() {
            let step = run * steps.len() + s;
            w.step = step as u16;
            w.published.step = Some(step as u32);
            if run_step(module, launches, range.clone(), w, config, deadline, rng)? {
                return Ok(());
            }
        }
    }
    Ok(())
}

/// How many times the checker makes a run of several ranks: twice, as a
/// benchmark repeats it, so that a race between one run and the next is
/// found too (a fast rank's next run overwriting what a slow peer is still
/// reading of this one). Each run's outputs are the same, or the second
/// shows what the first left behind.
pub const RUNS: usize = 2;

/// The steps: each launch of rank 0 starts one.
pub fn steps(launches: &[Launch]) -> Vec<Range<usize>> {
    let mut starts: Vec<usize> = (0..launches.len())
        .filter(|&i| i == 0 || launches[i].rank == 0)
        .collect();
    starts.push(launches.len());
    starts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// Refuses what a step of several ranks cannot be: two launches of one
/// rank, ranks with different kernels or shapes, clusters, tensor maps,
/// more ranks, steps or threads than the checker numbers.
fn check(module: &Module, launches: &[Launch], steps: &[Range<usize>]) -> Result<(), Error> {
    let refuse = |what: String| Err(Error::Limit(what));
    if steps.len() * RUNS > usize::from(u16::MAX) {
        return refuse(format!(
            "a run of several ranks in {} steps, made {RUNS} times; the CPU checker numbers \
             at most {} steps",
            steps.len(),
            u16::MAX
        ));
    }
    let mut threads = 0u64;
    for range in steps {
        let step = &launches[range.clone()];
        let first = &step[0];
        let mut ranks = BTreeSet::new();
        for l in step {
            threads += l
                .grid
                .iter()
                .chain(&l.block)
                .map(|&n| u64::from(n))
                .product::<u64>();
            if l.rank > 255 {
                return refuse(format!(
                    "`{}` runs on rank {}; the CPU checker runs ranks 0 to 255",
                    l.entry, l.rank
                ));
            }
            if !ranks.insert(l.rank) {
                return refuse(format!(
                    "rank {} launches `{}` twice in one step: a step (a launch of rank 0 and \
                     the launches of other ranks after it) runs one launch per rank",
                    l.rank, l.entry
                ));
            }
            let same = l.entry == first.entry
                && l.grid == first.grid
                && l.block == first.block
                && l.dynamic_shared_bytes == first.dynamic_shared_bytes;
            if !same {
                return refuse(format!(
                    "rank {} launches `{}` {:?}×{:?} in the step where rank {} launches `{}` \
                     {:?}×{:?}: the CPU checker runs a step's ranks with one kernel and one shape",
                    l.rank,
                    l.entry,
                    l.grid,
                    l.block,
                    first.rank,
                    first.entry,
                    first.grid,
                    first.block
                ));
            }
            if l.args.iter().any(|a| matches!(a, Param::TensorMap(_))) {
                return refuse(format!(
                    "`{}` takes a tensor map; the CPU checker runs tensor maps on one rank only",
                    l.entry
                ));
            }
            let clustered = module
                .kernel(&l.entry)
                .and_then(|k| k.cluster)
                .is_some_and(|c| c != [1, 1, 1]);
            if clustered {
                return refuse(format!(
                    "`{}` has clusters of blocks; the CPU checker runs clusters on one rank only",
                    l.entry
                ));
            }
        }
    }
    if threads * RUNS as u64 > u64::from(u32::MAX) {
        return refuse(format!(
            "a run of several ranks of {threads} threads in all, made {RUNS} times; the CPU \
             checker numbers them with 32 bits"
        ));
    }
    Ok(())
}

/// Runs one step, `launches[range]`: every rank's blocks in one cohort,
/// numbered after the launches before; `Ok(true)` where a deadlock stopped
/// the run.
fn run_step(
    module: &Module,
    launches: &[Launch],
    range: Range<usize>,
    w: &mut World,
    config: &Config,
    deadline: gpu_hazard::Deadline,
    rng: &mut Rng,
) -> Result<bool, Error> {
    let first = &launches[range.start];
    let kernel = module
        .kernel(&first.entry)
        .ok_or_else(|| Error::NoEntryPoint(first.entry.clone()))?;
    let mut symbols = HashMap::new();
    for l in &launches[range.clone()] {
        let (params, names, _) = cohort::lay_out_params(kernel, l, &w.globals)?;
        let rank = l.rank as usize;
        if w.params.len() <= rank {
            w.params.resize(rank + 1, Vec::new());
        }
        w.params[rank] = params;
        symbols = names;
    }
    w.tensor_maps = HashMap::new();
    w.launch = range.start;
    let layout = cohort::prepare(module, kernel, first, w, config, symbols)?;
    let per_block: u32 = first.block.iter().product();
    let count: u32 = first.grid.iter().product();
    // Every block of the step is resident at once: its shared memory and
    // race check, its threads' registers and local memory.
    let shadow = std::mem::size_of::<Shadow>() as u64;
    let per_thread = kernel.registers as u64 * 8 + kernel.local_bytes + 512;
    let block_bytes =
        layout.size + layout.size.div_ceil(4) * shadow + u64::from(per_block) * per_thread;
    let resident = block_bytes * u64::from(count) * range.len() as u64;
    let buffers: u64 = w
        .globals
        .iter()
        .map(|r| r.bytes.len() as u64 * (1 + shadow / 4))
        .sum();
    config
        .limits
        .afford(
            resident + buffers,
            &format!("this step of {} ranks", range.len()),
            "every block of every rank at once, and the buffers with a record of every access \
             to them",
        )
        .map_err(Error::Limit)?;
    let g = first.grid;
    let mut blocks = Vec::new();
    let mut mems = Vec::new();
    for (index, l) in launches[range.clone()].iter().enumerate() {
        // After the last launch's threads and blocks.
        let (thread, block) = w.origins.last().map_or((0, 0), |o| {
            let blocks: u32 = o.grid.iter().product();
            (
                o.thread + blocks * o.block_dim.iter().product::<u32>(),
                o.block + blocks,
            )
        });
        let origin = Origin {
            thread,
            block,
            rank: l.rank,
            grid: l.grid,
            block_dim: l.block,
        };
        w.origins.push(origin);
        for b in 0..count {
            let at = [b % g[0], (b / g[0]) % g[1], b / (g[0] * g[1])];
            mems.push(cohort::block_memory(&layout, origin.block + b));
            let launch_index = range.start + index;
            let mut threads =
                cohort::block_threads(kernel, l, (at, b), per_block, launch_index, Some(&origin));
            if let Some(known) = w.carried.get(l.rank as usize).filter(|k| !k.is_empty()) {
                let known = Arc::new(known.clone());
                threads
                    .iter_mut()
                    .for_each(|t| t.knows = Arc::clone(&known));
            }
            blocks.push(threads);
        }
    }
    let stopped = cohort::run_cluster(kernel, &mut blocks, w, &mut mems, deadline, rng)?
        != cohort::Ended::Finished;
    for t in blocks.iter().flatten() {
        w.counter.finish(t.thread, t.reads, t.writes);
        let rank = t.rank as usize;
        if w.carried.len() <= rank {
            w.carried.resize(rank + 1, Default::default());
        }
        w.carried[rank].merge(&t.knows);
    }
    Ok(stopped)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (ranks of the launches in order, the steps as (first, end)).
    #[test]
    fn steps_table() {
        let cases: [(&[u32], &[(usize, usize)]); 5] = [
            (&[0, 0, 0], &[(0, 1), (1, 2), (2, 3)]),
            (&[0, 1, 0, 1], &[(0, 2), (2, 4)]),
            (&[0, 1, 2, 3], &[(0, 4)]),
            (&[1, 0, 2], &[(0, 1), (1, 3)]),
            (&[], &[]),
        ];
        for (ranks, want) in cases {
            let launches: Vec<Launch> = ranks
                .iter()
                .map(|&rank| Launch {
                    rank,
                    ..Launch::default()
                })
                .collect();
            let got: Vec<(usize, usize)> =
                steps(&launches).iter().map(|r| (r.start, r.end)).collect();
            assert_eq!(got, want, "{ranks:?}");
        }
    }
}
