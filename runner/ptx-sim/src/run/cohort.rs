//! Threads that run together: a block, the blocks of a cluster, or (see
//! `ranks`) every rank's blocks of one step. A launch is laid out here (its
//! parameters, its shared memory, its blocks' threads at their start); then
//! the threads of a cohort run in a seeded order between the points where
//! they must wait for each other. Warp operations are resolved when every
//! lane their mask names has reached one; a block barrier when every live
//! thread has; a cluster barrier when every thread of the cluster has. What
//! cannot complete is reported as a deadlock, not left to the clock.

use crate::exec::interpreter::run_thread;
use crate::exec::warp;
use crate::exec::world::report;
use crate::exec::world::{BlockMemory, Cluster, World};
use crate::hazard::{Kind, Knowledge};
use crate::launch::{Config, Error, Launch, Param};
use crate::memory::address::{self, Region};
use crate::memory::mbarrier::Mbarrier;
use crate::memory::trace::VariableTrace;
use crate::parse::module::{Kernel, Module, VarSpace};
use crate::thread::{Origin, Stop, ThreadState, describe};
use std::collections::HashMap;
use std::sync::Arc;

/// Parameters' bytes, their symbols' offsets, and the tensor maps among them by offset.
/// The seeded generator, shared with the other checker: a schedule can be replayed.
pub use gpu_hazard::Rng;

pub type Params = (
    Vec<u8>,
    HashMap<String, u64>,
    HashMap<u64, crate::launch::TensorMap>,
);

pub fn lay_out_params(
    kernel: &Kernel,
    launch: &Launch,
    buffers: &[Region],
) -> Result<Params, Error> {
    if kernel.params.len() != launch.args.len() {
        return Err(Error::Param(format!(
            "`{}` takes {} parameters and the launch gives {}",
            kernel.name,
            kernel.params.len(),
            launch.args.len()
        )));
    }
    let mut bytes = Vec::new();
    let mut symbols = HashMap::new();
    let mut maps = HashMap::new();
    for ((name, size), arg) in kernel.params.iter().zip(&launch.args) {
        let align = (*size).clamp(1, 64) as usize;
        let align = if size.is_power_of_two() { align } else { 8 };
        while bytes.len() % align != 0 {
            bytes.push(0);
        }
        symbols.insert(name.clone(), bytes.len() as u64);
        let value: Vec<u8> = match arg {
            Param::Buffer(n) => {
                let lead = buffers.get(*n).map_or(0, |r| r.lead);
                address::global_address(*n, lead as u64)
                    .to_le_bytes()
                    .to_vec()
            }
            Param::Value(v) => v.clone(),
            Param::Pointers(table) => {
                if table.len() * 8 > *size as usize {
                    return Err(Error::Param(format!(
                        "`{}` takes {size} bytes as its parameter `{name}`, too few for a table \
                         of {} addresses",
                        kernel.name,
                        table.len()
                    )));
                }
                let lead = |n: usize| buffers.get(n).map_or(0, |r| r.lead as u64);
                table
                    .iter()
                    .flat_map(|&n| address::global_address(n, lead(n)).to_le_bytes())
                    .collect()
            }
            Param::TensorMap(map) => {
                // The checker keeps its own description; the bytes stay zero.
                maps.insert(bytes.len() as u64, map.clone());
                Vec::new()
            }
        };
        let mut v = value;
        v.resize(*size as usize, 0);
        bytes.extend(v);
    }
    Ok((bytes, symbols, maps))
}

/// A launch's shared memory as its blocks get it: its size in bytes, and
/// its variables' names by offset (for messages).
pub struct SharedLayout {
    pub size: u64,
    pub names: Vec<(u64, String)>,
    /// The kernel issues wgmma, whose reads of shared memory need the
    /// writes they read fenced for the async proxy (see [`crate::order::proxy`]).
    pub async_reads: bool,
}

/// Lays a launch out in `w`: its parameters' and locals' symbols, its
/// shared memory (refused past the device's limit), its geometry.
pub fn prepare(
    module: &Module,
    kernel: &Kernel,
    launch: &Launch,
    w: &mut World,
    config: &Config,
    param_symbols: HashMap<String, u64>,
) -> Result<SharedLayout, Error> {
    for (name, off) in param_symbols {
        w.symbols.insert(name, off);
    }
    for (name, off) in &kernel.locals {
        w.symbols.insert(name.clone(), *off);
    }
    // Shared memory: static variables in order, then the dynamic part.
    let mut names = Vec::new();
    let mut size = 0u64;
    for v in module
        .variables
        .iter()
        .filter(|v| v.space == VarSpace::Shared && !v.external)
    {
        size = size.next_multiple_of(v.align.max(1));
        w.symbols.insert(v.name.clone(), size);
        names.push((size, demangle(&v.name)));
        size += v.size;
    }
    // Dynamic shared memory starts aligned, as the GPU's does; a kernel
    // without it has only its static variables (and the diagram only them).
    let dynamic = launch.dynamic_shared_bytes > 0
        || module
            .variables
            .iter()
            .any(|v| v.space == VarSpace::Shared && v.external);
    if dynamic {
        size = size.next_multiple_of(128);
    }
    for v in module
        .variables
        .iter()
        .filter(|v| v.space == VarSpace::Shared && v.external)
    {
        w.symbols.insert(v.name.clone(), size);
        names.push((size, demangle(&v.name)));
    }
    let static_bytes = size;
    size += u64::from(launch.dynamic_shared_bytes);
    if size > config.max_shared_bytes {
        return Err(Error::Limit(format!(
            "`{}` asks for {} bytes of dynamic shared memory (plus {static_bytes} static) per \
             block; Hopper GPUs allow at most {} ({} KiB) with the opt-in attribute",
            kernel.name,
            launch.dynamic_shared_bytes,
            config.max_shared_bytes,
            config.max_shared_bytes >> 10
        )));
    }
    w.grid = launch.grid;
    w.block_dim = launch.block;
    w.cluster = kernel.cluster.unwrap_or([1, 1, 1]);
    w.dynamic_shared = launch.dynamic_shared_bytes;
    if let Some(trace) = w.trace.as_mut()
        && trace.variables().last().is_none_or(|v| !v.workgroup_memory)
    {
        let name = names
            .first()
            .map_or_else(|| "shared".to_string(), |(_, n)| n.clone());
        trace.add(VariableTrace::new(name, true, (size / 4) as usize, true));
    }
    let async_reads = kernel
        .body
        .iter()
        .any(|i| i.op == crate::parse::inst::Op::Wgmma);
    Ok(SharedLayout {
        size,
        names,
        async_reads,
    })
}

/// A block's shared memory (poisoned) and mbarriers, fresh; `b` is the
/// block's index in the run's race check.
pub fn block_memory(layout: &SharedLayout, b: u32) -> BlockMemory {
    let size = layout.size as usize;
    let mut shared = Region::new("shared", vec![0; size], 0, size, true);
    shared.starts_unwritten = true;
    BlockMemory {
        shared,
        mbarriers: HashMap::<u64, Mbarrier>::new(),
        block_index: b,
        names: layout.names.clone(),
        barrier_changes: 0,
        named: Default::default(),
        in_flight: Default::default(),
        exited: false,
        proxy: layout.async_reads.then(Default::default),
    }
}

/// What a register or a byte of local memory holds before anything is
/// written to it.
pub const UNSET: u64 = u64::MAX;

/// The threads of block `block` (linear index `b`), at their start; in a
/// run of several ranks, numbered from their launch's `origin`.
pub fn block_threads(
    kernel: &Kernel,
    launch: &Launch,
    (block, b): ([u32; 3], u32),
    per_block: u32,
    launch_index: usize,
    origin: Option<&Origin>,
) -> Vec<ThreadState> {
    (0..per_block)
        .map(|l| {
            let tid = [
                l % launch.block[0],
                (l / launch.block[0]) % launch.block[1],
                l / (launch.block[0] * launch.block[1]),
            ];
            ThreadState {
                // A GPU's registers and local memory start as whatever
                // they held: all ones here (a NaN as any float, -1 as an
                // integer), so that a variable read before it is set (an
                // accumulator never zeroed) spoils what it reaches instead
                // of passing as the 0 it would be by luck.
                regs: vec![UNSET; kernel.registers],
                local: vec![UNSET as u8; kernel.local_bytes as usize],
                tid,
                linear: l,
                index: origin.map_or(0, |o| o.thread) + b * per_block + l,
                rank: launch.rank,
                block_id: origin.map_or(0, |o| o.block) + b,
                // Each block its own cluster; a launch with clusters renumbers them.
                cluster_id: origin.map_or(0, |o| o.block) + b,
                thread: crate::memory::access::Thread {
                    global: [0, 1, 2].map(|a| block[a] * launch.block[a] + tid[a]),
                    local: tid,
                    block,
                    launch: launch_index,
                    rank: origin.map(|o| o.rank),
                },
                ..ThreadState::default()
            }
        })
        .collect()
}

/// A shared variable's name as the CUDA source spells it (`_ZZ4mainE4tile` → `tile`).
pub fn demangle(name: &str) -> String {
    let Some(rest) = name.strip_prefix("_ZZ") else {
        return name.to_string();
    };
    // _ZZ <len><function> E <len><name> [_<n>]
    let after_e = rest.rfind('E').map_or(rest, |e| &rest[e + 1..]);
    let digits: String = after_e.chars().take_while(char::is_ascii_digit).collect();
    match digits.parse::<usize>() {
        Ok(n) => after_e
            .get(digits.len()..digits.len().saturating_add(n))
            .map_or_else(|| name.to_string(), str::to_string),
        _ => name.to_string(),
    }
}

/// How [`run_cluster`] left its blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// Every thread finished.
    Finished,
    /// Threads wait for each other forever (reported).
    Deadlock,
    /// Every thread left polls a flag in global memory that none of them
    /// will change: another block of the launch must.
    Waiting,
}

/// Runs the blocks of one cluster (one block, without clusters), or of a
/// step of several ranks (see `ranks`: clusters of one block), to their
/// end, to a deadlock, or (in a run of one rank) until every thread left
/// polls a flag that no thread of these blocks will change.
pub fn run_cluster(
    kernel: &Kernel,
    blocks: &mut [Vec<ThreadState>],
    w: &mut World,
    mems: &mut [BlockMemory],
    deadline: gpu_hazard::Deadline,
    rng: &mut Rng,
) -> Result<Ended, Error> {
    let mut idle_waits = 0;
    let mut idle_spins = 0;
    let mut deadline = deadline;
    // Blocks per cluster: the blocks that reach each other's shared memory.
    let n = (w.cluster.iter().product::<u32>() as usize).clamp(1, blocks.len().max(1));
    let whole = n == blocks.len();
    let place = |k: usize| if whole { (0, k) } else { (k / n * n, k % n) };
    loop {
        if deadline.passed() {
            return Err(crate::run::timeout::timed_out(kernel, blocks, w.lines));
        }
        let mut ready: Vec<(usize, usize)> = Vec::new();
        for (k, threads) in blocks.iter().enumerate() {
            for (i, t) in threads.iter().enumerate() {
                if matches!(t.stop, None | Some(Stop::Slice | Stop::Wait | Stop::Spin)) {
                    ready.push((k, i));
                }
            }
        }
        rng.shuffle(&mut ready);
        let changes: u64 = mems.iter().map(|m| m.barrier_changes).sum();
        let stores = w.changes;
        let mut only_waits = !ready.is_empty();
        for &(k, i) in &ready {
            let (first, own) = place(k);
            let mut cluster = Cluster {
                mems: &mut mems[first..first + n],
                own,
            };
            let stop = run_thread(&mut blocks[k][i], kernel, w, &mut cluster)
                .map_err(|(instruction, line)| Error::Unsupported { instruction, line })?;
            if stop != Stop::Wait {
                only_waits = false;
            }
            blocks[k][i].stop = Some(stop);
            // The clock is read now and then: a run is thousands of these.
            if deadline.tick(6) {
                return Err(crate::run::timeout::timed_out(kernel, blocks, w.lines));
            }
        }
        // A block of a cluster whose threads have all finished takes its
        // shared memory with it.
        if n > 1 {
            for (threads, mem) in blocks.iter().zip(mems.iter_mut()) {
                if !mem.exited && threads.iter().all(|t| t.stop == Some(Stop::Done)) {
                    w.block_exits(threads, mem);
                }
            }
        }
        let mut resolved = false;
        for (k, threads) in blocks.iter_mut().enumerate() {
            let (first, own) = place(k);
            let mems = &mut mems[first..first + n];
            match warp::resolve(kernel, threads, w, &mut Cluster { mems, own }) {
                warp::Resolved::Some => resolved = true,
                warp::Resolved::Deadlock => return Ok(Ended::Deadlock),
                warp::Resolved::None => {}
            }
        }
        for (threads, mem) in blocks.iter_mut().zip(mems.iter_mut()) {
            resolved |= crate::order::named::resolve(threads, &mut mem.named);
        }
        if resolved {
            continue;
        }
        macro_rules! all {
            () => {
                blocks.iter().flatten()
            };
        }
        if all!().any(|t| t.stop == Some(Stop::Slice)) {
            continue;
        }
        let spinning = || blocks.iter().flatten().any(|t| t.stop == Some(Stop::Spin));
        if all!().any(|t| t.stop == Some(Stop::Wait)) && !spinning() {
            let now: u64 = mems.iter().map(|m| m.barrier_changes).sum();
            if only_waits && now == changes {
                idle_waits += 1;
            } else {
                idle_waits = 0;
            }
            if idle_waits < 3 {
                continue;
            }
            let pc = all!()
                .find(|t| t.stop == Some(Stop::Wait))
                .map_or(0, |t| t.pc);
            let line = kernel
                .body
                .get(pc.saturating_sub(1))
                .map_or(0, |i| i.line as usize);
            report(
                w,
                Kind::Deadlock,
                line,
                "threads wait on an mbarrier phase that can never complete: every thread still \
                 running waits, and none arrives (are there fewer arrivals than mbarrier.init's \
                 count, or a transaction count that is never met?)"
                    .into(),
            );
            return Ok(Ended::Deadlock);
        }
        if all!().all(|t| t.stop == Some(Stop::Done)) {
            return Ok(Ended::Finished);
        }
        let mut released = false;
        for threads in blocks.iter_mut() {
            released |= block_barrier(kernel, threads, w);
        }
        if released {
            idle_spins = 0;
            continue;
        }
        // Polls that found memory as it was: go on while memory changes;
        // after rounds in which nothing did and no barrier opened, a
        // deadlock where several ranks run together, and otherwise a wait
        // for the launch's other blocks (see `schedule`).
        if all!().any(|t| t.stop == Some(Stop::Spin)) {
            let now: u64 = mems.iter().map(|m| m.barrier_changes).sum();
            idle_spins = match now != changes || w.changes != stores {
                true => 0,
                false => idle_spins + 1,
            };
            if idle_spins < 2 {
                continue;
            }
            if !w.ranked {
                return Ok(Ended::Waiting);
            }
            spin_deadlock(kernel, blocks, w);
            return Ok(Ended::Deadlock);
        }
        let mut passed = false;
        for (blocks, mems) in blocks.chunks_mut(n).zip(mems.chunks(n)) {
            let threads = || blocks.iter().flatten();
            if threads().all(|t| matches!(t.stop, Some(Stop::Cluster) | Some(Stop::Done)))
                && threads().any(|t| t.stop == Some(Stop::Cluster))
            {
                cluster_barrier(kernel, blocks, mems, w);
                passed = true;
            }
        }
        if passed {
            continue;
        }
        // Nothing can go on: threads wait for each other at different places.
        let stuck = all!()
            .find(|t| matches!(t.stop, Some(Stop::Warp { .. })))
            .or_else(|| all!().find(|t| t.stop != Some(Stop::Done)));
        if let Some(t) = stuck {
            let line = kernel.body.get(t.pc).map_or(0, |x| x.line as usize);
            let message = match t.stop {
                Some(Stop::Barrier {
                    id,
                    count: Some(count),
                }) => {
                    let waiting = all!()
                        .filter(|u| u.block_id == t.block_id && u.stop == t.stop)
                        .count();
                    let arrived = mems
                        .iter()
                        .find(|m| m.block_index == t.block_id)
                        .and_then(|m| m.named.get(&id))
                        .map_or(0, |b| b.arrived);
                    format!(
                        "{} waits at named barrier {id} for {count} threads, but {waiting} wait \
                         there and {arrived} arrived without waiting, and every other thread of \
                         its block has finished or waits elsewhere: none can go on, and the GPU \
                         hangs (is the barrier's count the number of threads that reach it?)",
                        describe(&t.thread)
                    )
                }
                Some(Stop::Warp { .. }) => format!(
                    "{} waits at a warp operation for lanes of its mask that wait at a barrier: \
                     neither can go on, and the GPU hangs",
                    describe(&t.thread)
                ),
                _ => format!(
                    "{} waits at a barrier that the other threads of its block or cluster wait at \
                     another barrier instead of: none can go on, and the GPU hangs",
                    describe(&t.thread)
                ),
            };
            report(w, Kind::Deadlock, line, message);
        }
        return Ok(Ended::Deadlock);
    }
}

/// Every live thread of a step polls a flag or waits at a barrier, and no
/// store changed memory in whole rounds: the flags are never set.
fn spin_deadlock(kernel: &Kernel, blocks: &[Vec<ThreadState>], w: &mut World) {
    let spinning: Vec<&ThreadState> = blocks
        .iter()
        .flatten()
        .filter(|t| t.stop == Some(Stop::Spin))
        .collect();
    let Some(t) = spinning.first() else {
        return;
    };
    let line = kernel
        .body
        .get(t.pc.saturating_sub(1))
        .map_or(0, |i| i.line as usize);
    let mut ranks: Vec<u32> = spinning.iter().map(|t| t.rank).collect();
    ranks.sort_unstable();
    ranks.dedup();
    let ranks: Vec<String> = ranks.iter().map(u32::to_string).collect();
    let message = format!(
        "{} waits at line {} for a flag that no thread of any rank will set: {} threads (of \
         ranks {}) poll flags that no longer change, every other thread has finished or waits \
         at a barrier, and no store changed memory since (is a signal missing, sent to another \
         slot or rank, or smaller than the value awaited?)",
        describe(&t.thread),
        w.lines.line(line),
        spinning.len(),
        ranks.join(", ")
    );
    report(w, Kind::Deadlock, line, message);
}

/// Releases a block whose every live thread waits at `__syncthreads()`
/// (reporting the threads that left without it, and barriers at different
/// places); false where the block is not there.
fn block_barrier(kernel: &Kernel, threads: &mut [ThreadState], w: &mut World) -> bool {
    let live: Vec<usize> = (0..threads.len())
        .filter(|&i| threads[i].stop != Some(Stop::Done))
        .collect();
    let at_barrier: Vec<usize> = live
        .iter()
        .copied()
        .filter(|&i| matches!(threads[i].stop, Some(Stop::Barrier { count: None, .. })))
        .collect();
    if at_barrier.is_empty() || at_barrier.len() < live.len() {
        return false;
    }
    let exited = threads.len() - live.len();
    let first = at_barrier[0];
    if exited > 0 {
        let line = kernel
            .body
            .get(threads[first].pc)
            .map_or(0, |x| x.line as usize);
        let gone = threads
            .iter()
            .find(|t| t.stop == Some(Stop::Done))
            .map(|t| describe(&t.thread));
        let message = format!(
            "{} waits at __syncthreads() here, but {} of its block's threads (such as {}) \
             returned without reaching it: a barrier must be reached by every thread of the \
             block, so the others wait for threads that never come (on a GPU: a hang, or \
             results that depend on the hardware)",
            describe(&threads[first].thread),
            exited,
            gone.unwrap_or_default()
        );
        report(w, Kind::DivergentBarrier, line, message);
    }
    let pcs: Vec<usize> = at_barrier.iter().map(|&i| threads[i].pc).collect();
    if pcs.iter().any(|&p| p != pcs[0]) {
        let line = kernel.body.get(pcs[0]).map_or(0, |x| x.line as usize);
        let other = pcs
            .iter()
            .find(|&&p| p != pcs[0])
            .and_then(|&p| kernel.body.get(p));
        let message = format!(
            "threads of one block wait at different __syncthreads() calls (this one and the one \
             at line {}): a barrier inside a branch that not every thread takes",
            other.map_or(0, |x| w.lines.line(x.line as usize))
        );
        report(w, Kind::DivergentBarrier, line, message);
    }
    // Everyone goes on, ordered after everything before the barrier.
    let mut merged = Knowledge::default();
    for &i in &at_barrier {
        if !threads[i].knows.is_empty() {
            merged.merge(&threads[i].knows);
        }
    }
    let merged = Arc::new(merged);
    for &i in &at_barrier {
        let t = &mut threads[i];
        t.epoch += 1;
        t.warp_epoch += 1;
        t.pc += 1;
        t.stop = None;
        if !merged.is_empty() {
            t.knows = merged.clone();
        }
    }
    true
}

/// `barrier.cluster.wait` reached by every live thread of the cluster:
/// each block passes a barrier, and every thread knows what every block of
/// the cluster did before it.
fn cluster_barrier(
    kernel: &Kernel,
    blocks: &mut [Vec<ThreadState>],
    mems: &[BlockMemory],
    w: &mut World,
) {
    let exited = blocks
        .iter()
        .flatten()
        .filter(|t| t.stop == Some(Stop::Done))
        .count();
    if exited > 0
        && let Some(t) = blocks
            .iter()
            .flatten()
            .find(|t| t.stop == Some(Stop::Cluster))
    {
        let line = kernel.body.get(t.pc).map_or(0, |x| x.line as usize);
        let message = format!(
            "{} waits at the cluster's barrier, but {exited} threads of the cluster returned \
             without reaching it",
            describe(&t.thread)
        );
        report(w, Kind::DivergentBarrier, line, message);
    }
    let mut merged = Knowledge::default();
    for t in blocks.iter().flatten() {
        if !t.knows.is_empty() {
            merged.merge(&t.knows);
        }
    }
    for (threads, mem) in blocks.iter().zip(mems) {
        let epoch = threads.iter().map(|t| t.epoch).max().unwrap_or(0);
        merged.blocks.insert(mem.block_index, epoch + 1);
    }
    let merged = Arc::new(merged);
    for t in blocks.iter_mut().flatten() {
        if t.stop == Some(Stop::Cluster) {
            t.epoch += 1;
            t.warp_epoch += 1;
            t.pc += 1;
            t.stop = None;
            t.knows = merged.clone();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shared_names_read_as_in_the_source() {
        let cases = [
            ("_ZZ4mainE4tile", "tile"),
            ("_ZZ13mbarrier_ringE5tiles", "tiles"),
            ("_ZZ10block_sumfE9warp_sums", "warp_sums"),
            ("smem", "smem"),
        ];
        for (mangled, want) in cases {
            assert_eq!(demangle(mangled), want);
        }
    }
}
