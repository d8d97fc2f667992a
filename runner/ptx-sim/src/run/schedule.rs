//! A run: memory laid out from the buffers and the module's variables,
//! then each launch's blocks one cluster (or one block) after another in a
//! seeded order, each run to its end by [`cohort::run_cluster`]; or, where
//! launches run on several ranks, step by step ([`crate::run::ranks`]).

use crate::exec::world::World;
use crate::exec::world::{BlockMemory, report};
use crate::hazard::Kind;
use crate::hazard::{Hazards, LineMap, Shadow};
use crate::launch::{Buffer, Config, Error, Launch, Run};
use crate::memory::address::{self, Region};
use crate::memory::trace::{Tracer, VariableTrace};
use crate::parse::module::{Kernel, Module, VarSpace};
use crate::run::cohort::{self, Rng};
use crate::run::resident;
use crate::thread::{Stop, ThreadState, describe};
use std::collections::HashMap;

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
        symbols.insert(v.name.clone(), address::global_address(globals.len(), 0));
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
        published: Default::default(),
        grid: [1, 1, 1],
        block_dim: [1, 1, 1],
        cluster: [1, 1, 1],
        dynamic_shared: 0,
        launch: 0,
        ranked: false,
        step: 0,
        origins: Vec::new(),
        carried: Vec::new(),
        changes: 0,
        instructions: 0,
        trace: config.trace.then(|| {
            Tracer::new(
                buffers
                    .iter()
                    .map(|b| {
                        let elements = b.len / b.element_bytes.max(1);
                        VariableTrace::new(b.name.clone(), false, elements, b.poisoned)
                    })
                    .collect(),
            )
        }),
        tensor_maps: HashMap::new(),
        printed: String::new(),
        printed_left_out: 0,
        tensor_core_lines: Default::default(),
    };
    let deadline = config.limits.start();
    let mut rng = Rng::new(config.seed);
    // Every launch's kernel is there and runs here, before any launch runs.
    for launch in launches {
        if module.kernel(&launch.entry).is_none() {
            return Err(Error::NoEntryPoint(launch.entry.clone()));
        }
        if let Some((instruction, line)) = module.unsupported(&launch.entry) {
            return Err(Error::Unsupported { instruction, line });
        }
    }
    if launches.iter().any(|l| l.rank > 0) {
        crate::run::ranks::run_steps(module, launches, &mut world, config, deadline, &mut rng)?;
    } else {
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
                            .is_some_and(|s| s.written() & (1 << (byte % 4)) != 0)
                    })
                })
                .collect()
        })
        .collect();
    let trace = world.trace.take().map(Tracer::finish);
    Ok(Run {
        buffers: buffers_after,
        findings: crate::launch::Findings::new(
            &world.hazards,
            world.counter.report(),
            written,
            trace,
        ),
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
    config
        .limits
        .afford(
            needed,
            "this run",
            "its buffers and a record of every access to them",
        )
        .map_err(Error::Limit)?;
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

/// Runs one launch; `Ok(true)` where a deadlock stopped the run.
fn launch_one(
    module: &Module,
    kernel: &Kernel,
    launch: &Launch,
    w: &mut World,
    config: &Config,
    deadline: gpu_hazard::Deadline,
    rng: &mut Rng,
) -> Result<bool, Error> {
    let (params, param_symbols, maps) = cohort::lay_out_params(kernel, launch, &w.globals)?;
    w.params = vec![params];
    w.tensor_maps = maps;
    let layout = cohort::prepare(module, kernel, launch, w, config, param_symbols)?;
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
    let members: u32 = c.iter().product();
    let resident = resident::on_gpu(per_block, layout.size) / members.max(1);
    // Blocks start as a GPU starts them: in order of their index, a GPU's
    // worth at a time, in any order within it (they run together). So a
    // grid whose blocks wait on a later block hangs here as it does on a
    // GPU; CUDA promises no order at all, and a kernel waiting on an
    // earlier block by index may still hang on some GPU (the finding says
    // so), but no GPU starts its blocks backwards.
    let mut order: Vec<u32> = (0..count).collect();
    if count <= 1 << 16 {
        for window in order.chunks_mut(resident.max(1) as usize) {
            rng.shuffle(window);
        }
    }
    // Clusters whose every thread left polls a flag another block must set:
    // resident, and run again whenever another cluster has run.
    let mut waiting: Vec<Waiting> = Vec::new();
    for n in order {
        if waiting.len() as u32 >= resident.max(1) {
            too_many_waiting(kernel, &waiting, w, count, per_block, layout.size);
            return Ok(true);
        }
        let at = [
            n % clusters[0],
            (n / clusters[0]) % clusters[1],
            n / (clusters[0] * clusters[1]),
        ];
        let mut mems = Vec::new();
        let mut blocks = Vec::new();
        for r in 0..members {
            let inner = [r % c[0], (r / c[0]) % c[1], r / (c[0] * c[1])];
            let block = [0, 1, 2].map(|a| at[a] * c[a] + inner[a]);
            let b = block[0] + launch.grid[0] * (block[1] + launch.grid[1] * block[2]);
            mems.push(cohort::block_memory(&layout, b));
            let mut threads =
                cohort::block_threads(kernel, launch, (block, b), per_block, w.launch, None);
            for t in &mut threads {
                t.cluster_id = n;
            }
            blocks.push(threads);
        }
        let mut cluster = Waiting { blocks, mems };
        match cluster.run(kernel, w, deadline, rng)? {
            cohort::Ended::Deadlock => return Ok(true),
            cohort::Ended::Waiting => waiting.push(cluster),
            cohort::Ended::Finished => {}
        }
        if run_waiting(kernel, &mut waiting, w, deadline, rng)? {
            return Ok(true);
        }
    }
    // Every block has started: those still waiting go on. Where none of
    // them can change memory any more they poll forever, as on a GPU,
    // until the clock stops them (a hang, reported where they poll).
    while !waiting.is_empty() {
        if run_waiting(kernel, &mut waiting, w, deadline, rng)? {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A cluster (one block, without clusters) and its shared memories.
struct Waiting {
    blocks: Vec<Vec<ThreadState>>,
    mems: Vec<BlockMemory>,
}

impl Waiting {
    /// Runs it on; where it finished, its threads' counts are kept.
    fn run(
        &mut self,
        kernel: &Kernel,
        w: &mut World,
        deadline: gpu_hazard::Deadline,
        rng: &mut Rng,
    ) -> Result<cohort::Ended, Error> {
        let ended =
            cohort::run_cluster(kernel, &mut self.blocks, w, &mut self.mems, deadline, rng)?;
        if ended == cohort::Ended::Finished {
            for t in self.blocks.iter().flatten() {
                w.counter.finish(t.thread, t.reads, t.writes);
            }
        }
        Ok(ended)
    }
}

/// Runs each waiting cluster on, while any of them gets further; `Ok(true)`
/// where one deadlocked.
fn run_waiting(
    kernel: &Kernel,
    waiting: &mut Vec<Waiting>,
    w: &mut World,
    deadline: gpu_hazard::Deadline,
    rng: &mut Rng,
) -> Result<bool, Error> {
    loop {
        let changes = w.changes;
        let before = waiting.len();
        let mut k = 0;
        while k < waiting.len() {
            match waiting[k].run(kernel, w, deadline, rng)? {
                cohort::Ended::Deadlock => return Ok(true),
                cohort::Ended::Finished => {
                    waiting.remove(k);
                }
                cohort::Ended::Waiting => k += 1,
            }
        }
        if waiting.is_empty() || (waiting.len() == before && w.changes == changes) {
            return Ok(false);
        }
    }
}

/// The first thread polling in `waiting`, and the line it polls at.
fn first_poll<'a>(kernel: &Kernel, waiting: &'a [Waiting]) -> Option<(&'a ThreadState, usize)> {
    let t = waiting
        .iter()
        .flat_map(|c| c.blocks.iter().flatten())
        .find(|t| t.stop == Some(Stop::Spin))?;
    let line = kernel
        .body
        .get(t.pc.saturating_sub(1))
        .map_or(0, |i| i.line as usize);
    Some((t, line))
}

/// More blocks wait on flags than the GPU holds at once, so a block that
/// has not started (and may be the one to set a flag) never will.
fn too_many_waiting(
    kernel: &Kernel,
    waiting: &[Waiting],
    w: &mut World,
    count: u32,
    per_block: u32,
    shared: u64,
) {
    let Some((t, line)) = first_poll(kernel, waiting) else {
        return;
    };
    let message = format!(
        "{} waits at line {} for a flag that another block must set, and so do {} blocks: as many \
         as an H100 or H200 runs at once of this kernel ({} SMs × {} blocks of {per_block} threads \
         and {shared} bytes of shared memory), of {count} in the grid. A block that has not \
         started by then starts only when a running one finishes, and none will: the GPU hangs. \
         CUDA promises neither the order in which blocks start nor that they run together; wait \
         only on blocks that started before (a ticket from atomicAdd, not blockIdx), or launch \
         no more blocks than fit",
        describe(&t.thread),
        w.lines.line(line),
        waiting.iter().map(|c| c.blocks.len()).sum::<usize>(),
        resident::SMS,
        resident::per_sm(per_block, shared),
    );
    report(w, Kind::Deadlock, line, message);
}
