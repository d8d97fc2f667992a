//! A run: memory laid out from the buffers and the module's variables, each
//! launch's blocks one after another in a seeded order, and inside a block
//! its threads in a seeded order between the points where they must wait
//! for each other. Warp operations are resolved when every lane their mask
//! names has reached one; a block barrier when every live thread has.
//! What cannot complete is reported as a deadlock, not left to the clock.

use crate::exec::run_thread;
use crate::exec_mem::report;
use crate::exec_mem::{BlockMemory, Cluster, Mbarrier, World};
use crate::hazard::{Hazards, Kind, Knowledge, LineMap, Shadow};
use crate::launch::{Buffer, Config, Error, Launch, Param, Run};
use crate::memory::{self, Region};
use crate::parse::{Kernel, Module, VarSpace};
use crate::thread::{Stop, ThreadState, describe};
use crate::trace::{AccessTrace, VariableTrace};
use crate::warp;
use std::collections::HashMap;
use std::sync::Arc;

/// SplitMix64: a small seeded generator, so a schedule can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next_u64() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
}

/// Runs `launches` in order over `buffers`.
pub fn run(
    module: &Module,
    launches: &[Launch],
    buffers: &[Buffer],
    lines: &dyn LineMap,
    config: &Config,
) -> Result<Run, Error> {
    check_memory(launches, buffers, config)?;
    let mut globals: Vec<Region> = buffers
        .iter()
        .map(|b| {
            let mut r = Region::new(&b.name, b.bytes.clone(), b.lead, b.len, true);
            r.element_bytes = b.element_bytes.max(1);
            r.starts_unwritten = b.poisoned;
            r
        })
        .collect();
    let mut symbols = HashMap::new();
    for v in module
        .variables
        .iter()
        .filter(|v| v.space != VarSpace::Shared)
    {
        symbols.insert(v.name.clone(), memory::global_address(globals.len(), 0));
        let mut r = Region::new(&v.name, v.init.clone(), 0, v.init.len(), true);
        // A `__device__` variable holds its initial value: never poison.
        r.starts_unwritten = false;
        globals.push(r);
    }
    let mut world = World {
        globals,
        params: Vec::new(),
        symbols,
        hazards: Hazards::default(),
        counter: Default::default(),
        lines,
        published: HashMap::new(),
        grid: [1, 1, 1],
        block_dim: [1, 1, 1],
        cluster: [1, 1, 1],
        dynamic_shared: 0,
        launch: 0,
        instructions: 0,
        trace: config.trace.then(|| {
            buffers
                .iter()
                .map(|b| VariableTrace {
                    name: b.name.clone(),
                    workgroup_memory: false,
                    elements: b.len / b.element_bytes.max(1),
                    starts_unwritten: b.poisoned,
                    touches: Vec::new(),
                })
                .collect()
        }),
        left_out: 0,
        tensor_maps: HashMap::new(),
        printed: String::new(),
        printed_left_out: 0,
    };
    let deadline = (config.clock)() + config.timeout;
    let mut rng = Rng(config.seed);
    // Every launch's kernel is there and runs here, before any launch runs.
    for launch in launches {
        if module.kernel(&launch.entry).is_none() {
            return Err(Error::NoEntryPoint(launch.entry.clone()));
        }
        if let Some((instruction, line)) = module.unsupported(&launch.entry) {
            return Err(Error::Unsupported { instruction, line });
        }
    }
    for (index, launch) in launches.iter().enumerate() {
        let kernel = module
            .kernel(&launch.entry)
            .ok_or_else(|| Error::NoEntryPoint(launch.entry.clone()))?;
        world.launch = index;
        for r in &mut world.globals {
            r.shadow.iter_mut().for_each(Shadow::new_launch);
        }
        world.published.clear();
        if launch_one(
            module, kernel, launch, &mut world, config, deadline, &mut rng,
        )? {
            break;
        }
    }
    let buffers_after: Vec<Vec<u8>> = world.globals[..buffers.len()]
        .iter()
        .map(|r| r.bytes.clone())
        .collect();
    let written = buffers
        .iter()
        .zip(&world.globals)
        .map(|(b, r)| {
            if !b.poisoned {
                return Vec::new();
            }
            let eb = b.element_bytes.max(1);
            (0..b.len / eb)
                .map(|e| {
                    let start = b.lead + e * eb;
                    (start..start + eb).any(|byte| {
                        r.shadow
                            .get(byte / 4)
                            .is_some_and(|s| s.written & (1 << (byte % 4)) != 0)
                    })
                })
                .collect()
        })
        .collect();
    let trace = world.trace.take().map(|variables| AccessTrace {
        variables,
        left_out: world.left_out,
    });
    Ok(Run {
        buffers: buffers_after,
        hazards: world.hazards.list().to_vec(),
        dropped: world.hazards.dropped,
        access: world.counter.report(),
        written,
        trace,
        instructions: world.instructions,
        printed: world.printed,
        printed_left_out: world.printed_left_out,
    })
}

/// Refuses what would take more memory than the budget.
fn check_memory(launches: &[Launch], buffers: &[Buffer], config: &Config) -> Result<(), Error> {
    let bytes: u64 = buffers.iter().map(|b| b.bytes.len() as u64).sum();
    let shadow = (bytes / 4 + 1) * std::mem::size_of::<Shadow>() as u64;
    let per_block = launches
        .iter()
        .map(|l| u64::from(l.block.iter().product::<u32>()))
        .max()
        .unwrap_or(0);
    let needed = bytes + shadow + per_block * 4096;
    if needed > config.memory_budget {
        return Err(Error::Limit(format!(
            "checking this run would take about {} MiB of memory (its buffers and a record of \
             every access to them), more than the CPU checker's {} MiB; check it at a smaller size",
            needed >> 20,
            config.memory_budget >> 20
        )));
    }
    for l in launches {
        let threads: u64 = l.block.iter().map(|&b| u64::from(b)).product::<u64>()
            * l.grid.iter().map(|&g| u64::from(g)).product::<u64>();
        if threads > u64::from(u32::MAX) {
            return Err(Error::Limit(format!(
                "`{}` launches {threads} threads; the CPU checker numbers threads with 32 bits",
                l.entry
            )));
        }
    }
    Ok(())
}

/// The parameters' bytes, each at its size's alignment.
/// Parameters' bytes, their symbols' offsets, and the tensor maps among them by offset.
type Params = (
    Vec<u8>,
    HashMap<String, u64>,
    HashMap<u64, crate::launch::TensorMap>,
);

fn lay_out_params(kernel: &Kernel, launch: &Launch, buffers: &[Region]) -> Result<Params, Error> {
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
                memory::global_address(*n, lead as u64)
                    .to_le_bytes()
                    .to_vec()
            }
            Param::Value(v) => v.clone(),
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

/// Runs one launch; `Ok(true)` where a deadlock stopped the run.
fn launch_one(
    module: &Module,
    kernel: &Kernel,
    launch: &Launch,
    w: &mut World,
    config: &Config,
    deadline: std::time::Duration,
    rng: &mut Rng,
) -> Result<bool, Error> {
    let (params, param_symbols, maps) = lay_out_params(kernel, launch, &w.globals)?;
    w.params = params;
    w.tensor_maps = maps;
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
        && trace.last().is_none_or(|v| !v.workgroup_memory)
    {
        trace.push(VariableTrace {
            name: names
                .first()
                .map_or_else(|| "shared".to_string(), |(_, n)| n.clone()),
            workgroup_memory: true,
            elements: (size / 4) as usize,
            starts_unwritten: true,
            touches: Vec::new(),
        });
    }
    let per_block: u32 = launch.block.iter().product();
    let c = w.cluster;
    if (0..3).any(|a| c[a] == 0 || !launch.grid[a].is_multiple_of(c[a])) {
        return Err(Error::Limit(format!(
            "a grid of {:?} blocks is not a whole number of clusters of {:?}",
            launch.grid, c
        )));
    }
    let clusters = [0, 1, 2].map(|a| launch.grid[a] / c[a]);
    let count: u32 = clusters.iter().product();
    let mut order: Vec<u32> = (0..count).collect();
    if count <= 1 << 16 {
        rng.shuffle(&mut order);
    }
    for n in order {
        let at = [
            n % clusters[0],
            (n / clusters[0]) % clusters[1],
            n / (clusters[0] * clusters[1]),
        ];
        let ranks: u32 = c.iter().product();
        let mut mems = Vec::new();
        let mut blocks = Vec::new();
        for r in 0..ranks {
            let inner = [r % c[0], (r / c[0]) % c[1], r / (c[0] * c[1])];
            let block = [0, 1, 2].map(|a| at[a] * c[a] + inner[a]);
            let b = block[0] + launch.grid[0] * (block[1] + launch.grid[1] * block[2]);
            let mut shared = Region::new("shared", vec![0; size as usize], 0, size as usize, true);
            shared.starts_unwritten = true;
            mems.push(BlockMemory {
                shared,
                mbarriers: HashMap::<u64, Mbarrier>::new(),
                block_index: b,
                names: names.clone(),
                mbarrier_changes: 0,
            });
            blocks.push(block_threads(kernel, launch, block, b, per_block, w.launch));
        }
        let stopped = run_cluster(kernel, &mut blocks, w, &mut mems, deadline, config, rng)?;
        for t in blocks.iter().flatten() {
            w.counter.finish(t.thread, t.reads, t.writes);
        }
        if stopped {
            return Ok(true);
        }
    }
    Ok(false)
}

/// The threads of block `block` (linear index `b`), at their start.
fn block_threads(
    kernel: &Kernel,
    launch: &Launch,
    block: [u32; 3],
    b: u32,
    per_block: u32,
    launch_index: usize,
) -> Vec<ThreadState> {
    (0..per_block)
        .map(|l| {
            let tid = [
                l % launch.block[0],
                (l / launch.block[0]) % launch.block[1],
                l / (launch.block[0] * launch.block[1]),
            ];
            ThreadState {
                regs: vec![0; kernel.registers],
                pc: 0,
                local: vec![0; kernel.local_bytes as usize],
                tid,
                linear: l,
                index: b * per_block + l,
                thread: crate::access::Thread {
                    global: [0, 1, 2].map(|a| block[a] * launch.block[a] + tid[a]),
                    local: tid,
                    block,
                    launch: launch_index,
                },
                reads: 0,
                writes: 0,
                epoch: 0,
                warp_epoch: 0,
                released: 0,
                knows: Arc::new(Knowledge::default()),
                fenced: false,
                stop: None,
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

/// Runs the blocks of one cluster (one block, without clusters) to their
/// end; `Ok(true)` where a deadlock stopped the run.
fn run_cluster(
    kernel: &Kernel,
    blocks: &mut [Vec<ThreadState>],
    w: &mut World,
    mems: &mut [BlockMemory],
    deadline: std::time::Duration,
    config: &Config,
    rng: &mut Rng,
) -> Result<bool, Error> {
    let mut idle_waits = 0;
    let mut clock_checks = 0u32;
    loop {
        if (config.clock)() > deadline {
            return Err(crate::timeout::timed_out(kernel, blocks, w.lines));
        }
        let mut ready: Vec<(usize, usize)> = Vec::new();
        for (k, threads) in blocks.iter().enumerate() {
            for (i, t) in threads.iter().enumerate() {
                if matches!(t.stop, None | Some(Stop::Slice) | Some(Stop::Wait)) {
                    ready.push((k, i));
                }
            }
        }
        rng.shuffle(&mut ready);
        let changes: u64 = mems.iter().map(|m| m.mbarrier_changes).sum();
        let mut only_waits = !ready.is_empty();
        for &(k, i) in &ready {
            let mut cluster = Cluster { mems, own: k };
            let stop = run_thread(&mut blocks[k][i], kernel, w, &mut cluster)
                .map_err(|(instruction, line)| Error::Unsupported { instruction, line })?;
            if stop != Stop::Wait {
                only_waits = false;
            }
            blocks[k][i].stop = Some(stop);
            // The clock is read now and then: a run is thousands of these.
            clock_checks += 1;
            if clock_checks.is_multiple_of(64) && (config.clock)() > deadline {
                return Err(crate::timeout::timed_out(kernel, blocks, w.lines));
            }
        }
        let mut resolved = false;
        for (k, threads) in blocks.iter_mut().enumerate() {
            match warp::resolve(kernel, threads, w, &mut Cluster { mems, own: k }) {
                warp::Resolved::Some => resolved = true,
                warp::Resolved::Deadlock => return Ok(true),
                warp::Resolved::None => {}
            }
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
        if all!().any(|t| t.stop == Some(Stop::Wait)) {
            let now: u64 = mems.iter().map(|m| m.mbarrier_changes).sum();
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
            return Ok(true);
        }
        if all!().all(|t| t.stop == Some(Stop::Done)) {
            return Ok(false);
        }
        let mut released = false;
        for threads in blocks.iter_mut() {
            released |= block_barrier(kernel, threads, w);
        }
        if released {
            continue;
        }
        if all!().all(|t| matches!(t.stop, Some(Stop::Cluster) | Some(Stop::Done))) {
            cluster_barrier(kernel, blocks, mems, w);
            continue;
        }
        // Nothing can go on: threads wait for each other at different places.
        let stuck = all!()
            .find(|t| matches!(t.stop, Some(Stop::Warp { .. })))
            .or_else(|| all!().find(|t| t.stop != Some(Stop::Done)));
        if let Some(t) = stuck {
            let line = kernel.body.get(t.pc).map_or(0, |x| x.line as usize);
            let message = match t.stop {
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
        return Ok(true);
    }
}

/// The time-out, with the line most of the threads still running were at:
/// the loop that never ends, or the wait that never completes.
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
        .filter(|&i| matches!(threads[i].stop, Some(Stop::Barrier { .. })))
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
