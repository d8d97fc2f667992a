//! What the threads of a launch share ([`World`]: global memory, the
//! parameters (each rank's), the checks and their reports, what releases
//! published) and what a block's threads share ([`BlockMemory`]: shared
//! memory and its mbarriers), with the loads and stores that go
//! through them.
//! Every access is checked here: its address against its region and guard
//! bands, its bytes against the race rule, a read of shared memory or of a
//! poisoned output against what was written, and global accesses counted.

use crate::exec::value;
use crate::hazard::{Access as Seen, Hazards, Kind, LineMap, Now, Strength};
use crate::memory::access::Counter;
use crate::memory::address::{self, Place, Region};
use crate::memory::mbarrier::{BulkLanding, Mbarrier};
use crate::memory::trace::{Touch, Tracer};
use crate::order::release::Publications;
use crate::parse::inst::{Operand, Space, Sreg, Ty};
use crate::thread::{Origin, ThreadState, describe, numbered};
use std::collections::{BTreeMap, HashMap};

/// Bytes of `printf` output a run keeps; the rest is counted, not kept.
pub const MAX_PRINTED: usize = 1 << 20;

/// One load or store of up to 8 bytes.
#[derive(Debug, Clone, Copy)]
pub struct Access {
    pub addr: u64,
    pub width: u32,
    pub write: bool,
    /// An atomic's read or write (`atom`, `red`), for the diagrams.
    pub atomic: bool,
    /// Plain, volatile or strong at a scope: what the race rule needs.
    pub strength: Strength,
    /// The first element of its instruction (a `v4` access counts once).
    pub first: bool,
    pub line: usize,
}

/// A block's shared memory and what lives in it.
pub struct BlockMemory {
    pub shared: Region,
    /// mbarrier objects by shared offset.
    pub mbarriers: HashMap<u64, Mbarrier>,
    pub block_index: u32,
    /// Shared variables' names by offset, for messages.
    pub names: Vec<(u64, String)>,
    /// How often an mbarrier or a named barrier changed (a wait that keeps
    /// failing while none does is a deadlock).
    pub barrier_changes: u64,
    /// Named barriers' current phases by id (see `order::named`).
    pub named: BTreeMap<u32, crate::order::named::NamedBarrier>,
    /// Shared words that a `cp.async` in flight will write, with the
    /// issuing thread and the copy's line: any access to one before the
    /// copy lands is a race with the copy.
    pub in_flight: crate::memory::in_flight::InFlight,
    /// Generic writes that wgmma's async reads must not see unfenced
    /// (kept where the kernel issues wgmma).
    pub proxy: Option<crate::order::proxy::ProxyWrites>,
    /// Every thread of the block has finished, and its shared memory is
    /// gone: another block of its cluster may no longer reach it.
    pub exited: bool,
}

/// The shared memories of the blocks running together: one block's, or a
/// cluster's (whose blocks reach each other's shared memory), and which of
/// them is the running thread's own.
pub struct Cluster<'m> {
    pub mems: &'m mut [BlockMemory],
    pub own: usize,
}

impl BlockMemory {
    /// Writes bulk copies whose phase completed; their words leave flight.
    /// Returns whether any byte changed.
    pub fn land(&mut self, copies: Vec<BulkLanding>) -> bool {
        let mut changed = false;
        for copy in copies {
            for (off, value, width) in copy.pieces {
                let (off, width) = (off as usize, usize::from(width));
                let new = &value.to_le_bytes()[..width];
                if let Some(old) = self.shared.bytes.get_mut(off..off + width) {
                    changed |= old != new;
                    old.copy_from_slice(new);
                }
                for word in off / 4..=(off + width - 1) / 4 {
                    self.in_flight.land(word, copy.issuer);
                }
                if let Some(proxy) = self.proxy.as_mut() {
                    proxy.async_write(off / 4..=(off + width - 1) / 4);
                }
            }
        }
        changed
    }
}

/// What an access does with memory.
#[derive(Debug, Clone, Copy)]
enum Op {
    Load,
    Store(u64),
    /// A write whose bytes land later ([`World::claim`]).
    Claim,
}

/// What every thread of a launch shares.
pub struct World<'l> {
    pub globals: Vec<Region>,
    /// The parameters' bytes, by rank (one in a run of one rank).
    pub params: Vec<Vec<u8>>,
    /// Symbol addresses: parameters, module variables, shared variables.
    pub symbols: HashMap<String, u64>,
    pub hazards: Hazards,
    pub counter: Counter,
    pub lines: &'l dyn LineMap,
    /// What releases published, by the address they released to.
    pub published: Publications,
    pub grid: [u32; 3],
    pub block_dim: [u32; 3],
    pub cluster: [u32; 3],
    pub dynamic_shared: u32,
    pub launch: usize,
    /// A run of several ranks ([`crate::run::ranks`]): its step (0 otherwise),
    /// and where its launches' threads start (empty otherwise); and how
    /// often a store changed memory (for polls that spin).
    pub ranked: bool,
    pub step: u16,
    pub origins: Vec<Origin>,
    /// By rank: what that rank's threads knew when its last step ended.
    /// Its next step's threads start knowing it (one stream's order
    /// carries what a kernel acquired from peers to the kernels after it).
    pub carried: Vec<crate::hazard::Knowledge>,
    pub changes: u64,
    pub instructions: u64,
    /// Touches kept for the diagrams, by global region (then shared at the end).
    pub trace: Option<Tracer>,
    /// TMA tensor maps, by the offset of their parameter.
    pub tensor_maps: HashMap<u64, crate::launch::TensorMap>,
    /// What `printf` printed, in the order the threads printed it, and the
    /// bytes past [`MAX_PRINTED`] left out.
    pub printed: String,
    pub printed_left_out: usize,
    /// The lines of the `wgmma`s whose operands were read again when their
    /// group retired (`matrix::retire`): a race with one of those reads
    /// is explained as the tensor cores still reading.
    pub tensor_core_lines: std::collections::BTreeSet<usize>,
}

impl World<'_> {
    pub fn threads_per_block(&self) -> u32 {
        self.block_dim.iter().product()
    }

    pub fn cluster_rank(&self, block: [u32; 3]) -> u32 {
        let c = self.cluster;
        let r = [0, 1, 2].map(|a| block[a] % c[a].max(1));
        r[0] + c[0] * (r[1] + c[1] * r[2])
    }

    /// `width` bytes at the generic address `addr` (global, local or
    /// parameter memory), read without a check or a trace: printf's format
    /// and arguments, which are the checker's to read, not the kernel's.
    pub fn peek(&self, t: &ThreadState, addr: u64, width: usize) -> Option<u64> {
        let (bytes, off) = match address::place(addr) {
            Place::Global(n, off) => (&self.globals.get(n)?.bytes[..], off),
            Place::Local(off) => (&t.local[..], off),
            Place::Param(off) => (&self.params.get(t.rank as usize)?[..], off),
            _ => return None,
        };
        let off = off as usize;
        bytes
            .get(off..off.checked_add(width)?)
            .map(address::load_le)
    }

    /// Keeps one printf's text, up to the cap.
    pub fn print(&mut self, text: &str) {
        let room = MAX_PRINTED.saturating_sub(self.printed.len());
        if text.len() <= room {
            self.printed.push_str(text);
        } else {
            self.printed_left_out += text.len();
        }
    }

    pub fn symbol(&self, name: &str) -> Option<u64> {
        self.symbols.get(name).copied()
    }

    /// The generic address an address operand names, in `space`.
    pub fn address(&self, t: &ThreadState, o: &Operand, space: Space) -> Option<u64> {
        let (base, off) = match o {
            Operand::Mem(base, off) => (base.as_ref(), *off),
            other => (other, 0),
        };
        let b = match base {
            Operand::Symbol(name) => self.symbol(name)?,
            Operand::Imm(a) => *a,
            Operand::Addr(a) => *a,
            Operand::Reg(r) => t.regs[*r as usize],
            _ => return None,
        };
        let a = b.wrapping_add(off as u64);
        // Shared, local and parameter symbols and registers hold offsets in
        // their window; global ones are generic addresses already.
        Some(match space {
            Space::Generic | Space::Global | Space::Const => a,
            Space::Shared | Space::SharedCluster => address::SHARED + (a & 0xFFFF_FFFF),
            Space::Local => address::LOCAL.wrapping_add(a),
            Space::Param => address::PARAM.wrapping_add(a),
        })
    }

    pub fn load(&mut self, t: &mut ThreadState, b: &mut Cluster<'_>, a: Access) -> u64 {
        self.touch(t, b, a, Op::Load)
    }

    pub fn store(&mut self, t: &mut ThreadState, b: &mut Cluster<'_>, a: Access, v: u64) {
        self.touch(t, b, a, Op::Store(v));
    }

    /// Checks, counts and traces a write whose bytes come later (a bulk
    /// copy's, written when its mbarrier's phase completes), as `t`'s.
    pub fn claim(&mut self, t: &mut ThreadState, b: &mut Cluster<'_>, a: Access) {
        self.touch(t, b, a, Op::Claim);
    }

    /// Checks and performs one access; returns what a load read.
    fn touch(&mut self, t: &mut ThreadState, b: &mut Cluster<'_>, a: Access, op: Op) -> u64 {
        let place = address::place(a.addr);
        let width = a.width as usize;
        match place {
            Place::Local(off) => {
                let off = off as usize;
                if off + width > t.local.len() {
                    return 0;
                }
                return match op {
                    Op::Claim => 0,
                    Op::Store(v) => {
                        t.local[off..off + width].copy_from_slice(&v.to_le_bytes()[..width]);
                        0
                    }
                    Op::Load => address::load_le(&t.local[off..off + width]),
                };
            }
            Place::Param(off) => {
                let off = off as usize;
                let params = &self.params[t.rank as usize];
                if !matches!(op, Op::Load) || off + width > params.len() {
                    return 0;
                }
                return address::load_le(&params[off..off + width]);
            }
            Place::Nowhere => {
                self.out_of_bounds(
                    t,
                    a,
                    "an address that points at no memory (a null or garbage pointer?)".into(),
                );
                return 0;
            }
            _ => {}
        }
        let global = matches!(place, Place::Global(..));
        if global && a.first {
            if a.write {
                t.writes += 1;
                self.counter.access(true, t.writes, t.thread, a.line);
            } else {
                t.reads += 1;
                self.counter.access(false, t.reads, t.thread, a.line);
            }
        }
        let (which, off) = match place {
            Place::Global(n, off) if n < self.globals.len() => (Some(n), off as usize),
            Place::Global(..) => {
                self.out_of_bounds(t, a, "an address past every buffer".into());
                return 0;
            }
            Place::Shared(off, rank) => {
                let target = rank.map_or(b.own, |r| r as usize);
                if target >= b.mems.len() {
                    let what = format!(
                        "an address in the shared memory of block {target} of its cluster, which has {}",
                        b.mems.len()
                    );
                    self.out_of_bounds(t, a, what);
                    return 0;
                }
                (None, off as usize)
            }
            _ => return 0,
        };
        let target = match place {
            Place::Shared(_, Some(r)) => r as usize,
            _ => b.own,
        };
        let (total, lead, len, elem) = {
            let r = match which {
                Some(n) => &self.globals[n],
                None => &b.mems[target].shared,
            };
            (r.bytes.len(), r.lead, r.len, r.element_bytes.max(1))
        };
        let region_name = || match which {
            Some(n) => self.globals[n].name.clone(),
            None => "shared".to_string(),
        };
        if off + width > total {
            let region_name = region_name();
            let what = if global {
                format!(
                    "{} past every guard band of `{region_name}` (its byte {} of {len})",
                    if a.write { "writes" } else { "reads" },
                    off as i64 - lead as i64,
                )
            } else {
                format!(
                    "{} shared memory at byte {off}, past the block's {total} bytes",
                    if a.write { "writes" } else { "reads" },
                )
            };
            self.out_of_bounds(t, a, what);
            return 0;
        }
        let inside = off >= lead && off + width <= lead + len;
        if !inside && global {
            let region_name = region_name();
            let index = (off as i64 - lead as i64).div_euclid(elem as i64);
            let what = format!(
                "{} `{region_name}[{index}]`, outside its {} elements",
                if a.write { "writes" } else { "reads" },
                len / elem
            );
            self.out_of_bounds(t, a, what);
        }
        if which.is_none() && target != b.own && b.mems[target].exited {
            self.after_exit(t, a.line, a.write, &b.mems[target], off as u64, width);
        }
        if which.is_none()
            && b.mems[target]
                .in_flight
                .any(off / 4..=(off + width - 1) / 4)
        {
            self.copy_in_flight(t, a, &b.mems[target], off, width);
        }
        let region = match which {
            Some(n) => &mut self.globals[n],
            None => &mut b.mems[target].shared,
        };
        // The race check and the uninitialized read, word by word.
        let block_linear = b.mems[b.own].block_index;
        let starts_unwritten = region.starts_unwritten;
        let mut uninitialized = false;
        let mut conflict = None;
        if !region.shadow.is_empty() && (inside || !global) {
            let first_word = off / 4;
            let last_word = (off + width - 1) / 4;
            for word in first_word..=last_word {
                let lo = (word * 4).max(off);
                let hi = (word * 4 + 4).min(off + width);
                let mut bytes = 0u8;
                for byte in lo..hi {
                    bytes |= 1 << (byte - word * 4);
                }
                let seen = Seen {
                    thread: t.index,
                    block: block_linear,
                    epoch: t.epoch,
                    warp: block_linear.wrapping_mul(64).wrapping_add(t.warp()),
                    warp_epoch: t.warp_epoch,
                    released: t.released,
                    cluster: t.cluster_id,
                    bytes,
                    rank: t.rank as u8,
                    step: self.step,
                    strength: a.strength,
                    line: a.line as u32,
                };
                let Some(shadow) = region.shadow.get_mut(word) else {
                    continue;
                };
                if !a.write && starts_unwritten && shadow.written() & bytes != bytes {
                    uninitialized = true;
                }
                let now = Now {
                    access: seen,
                    knows: &t.knows,
                };
                let c = if a.write {
                    shadow.write(&now)
                } else {
                    shadow.read(&now)
                };
                if conflict.is_none() {
                    conflict = c.map(|(other, wrote)| (other, wrote, seen));
                }
            }
        }
        let result = match op {
            Op::Claim => 0,
            Op::Store(v) => {
                let new = &v.to_le_bytes()[..width];
                if region.bytes[off..off + width] != *new {
                    self.changes += 1;
                }
                region.bytes[off..off + width].copy_from_slice(new);
                0
            }
            Op::Load => address::load_le(&region.bytes[off..off + width]),
        };
        if which.is_none()
            && matches!(op, Op::Store(_))
            && let Some(proxy) = b.mems[target].proxy.as_mut()
        {
            proxy.write(
                off / 4..=(off + width - 1) / 4,
                t.index,
                t.proxy_fences,
                a.line,
            );
        }
        if self.trace.is_some() {
            self.trace_touch(t, place, off, a, inside);
        }
        if !uninitialized && conflict.is_none() {
            return result;
        }
        let element = if global {
            let name = &self.globals[which.unwrap_or(0)].name;
            format!(
                "`{name}[{}]`",
                (off as i64 - lead as i64).div_euclid(elem as i64)
            )
        } else {
            shared_name(&b.mems[target], off as u64, width)
        };
        let memory_words = if global {
            "global memory"
        } else {
            "shared memory"
        };
        if uninitialized
            && !self
                .hazards
                .known(Kind::Uninitialized, self.lines.line(a.line))
        {
            let why = if global {
                "before anything wrote it. Outputs start out holding poison (NaN for floats), so \
                 this reads poison and whatever is computed from it is poison too: `out[i] += …` \
                 needs `out[i]` set first"
            } else {
                "before any thread of its block wrote it. CUDA's shared memory starts out holding \
                 whatever was there before (WGSL's starts at zero): write every slot you read, or \
                 do not read it"
            };
            let message = format!("{} reads {element} {why}", describe(&t.thread));
            let mapped = self.lines.line(a.line);
            self.hazards
                .add(Kind::Uninitialized, a.line, mapped, message);
        }
        if let Some((other, other_wrote, now)) = conflict {
            let line = self.lines.line(a.line);
            if !self.hazards.known(Kind::Race, line) {
                let verb = |w: bool| if w { "writes" } else { "reads" };
                let other_line = other.line as usize;
                let missed_block = self.published.missed_block(block_linear, other.block);
                let why = if u32::from(other.rank) != t.rank {
                    let missed = self.published.missed(t.rank, u32::from(other.rank));
                    crate::order::release::across_ranks(missed).to_string()
                } else if let Some(why) = crate::order::release::unordered(
                    &now,
                    &other,
                    t.unfenced_read,
                    missed_block,
                    a.write && other_wrote,
                ) {
                    why.replace("{read_line}", &{
                        let l = t.unfenced_read.unwrap_or(0) as usize;
                        self.lines.line(l).to_string()
                    })
                } else if !other_wrote && self.tensor_core_lines.contains(&other_line) {
                    "the tensor cores may read a wgmma's operands until wgmma.wait_group retires \
                     its group, and this write comes after no such wait: hand a stage back (an \
                     mbarrier arrival) only after the wait that retires the products reading it"
                        .to_string()
                } else if !a.write && self.tensor_core_lines.contains(&a.line) {
                    "the tensor cores may read a wgmma's operands until wgmma.wait_group retires \
                     its group, and the other thread's write is not ordered before that wait"
                        .to_string()
                } else if other.warp == block_linear.wrapping_mul(64).wrapping_add(t.warp()) {
                    "no __syncthreads() or __syncwarp() lies between the two accesses, so either may come \
                     first: the lanes of a warp are not guaranteed to run in step (since Volta), and a \
                     shuffle orders no memory"
                        .to_string()
                } else {
                    "no __syncthreads() lies between the two accesses, so either may come first"
                        .to_string()
                };
                let other_thread = self.thread_name(other.thread);
                let message = format!(
                    "{} {} {element} ({memory_words}) here, and {other_thread} {} it at line {}; {why}",
                    describe(&t.thread),
                    verb(a.write),
                    verb(other_wrote),
                    self.lines.line(other_line),
                );
                self.hazards.add(Kind::Race, a.line, line, message);
            }
        }
        result
    }

    /// An access to shared words that an asynchronous copy still in flight
    /// will write: a race with the copy, which lands only at its wait (a
    /// `cp.async`) or when its mbarrier's phase completes (a bulk copy).
    #[cold]
    fn copy_in_flight(
        &mut self,
        t: &ThreadState,
        a: Access,
        mem: &BlockMemory,
        off: usize,
        width: usize,
    ) {
        let Some(copy) = mem.in_flight.find(off / 4..=(off + width - 1) / 4) else {
            return;
        };
        let line = self.lines.line(a.line);
        if self.hazards.known(Kind::Race, line) {
            return;
        }
        let element = shared_name(mem, off as u64, width);
        let who = if copy.issuer == t.index {
            "its own".to_string()
        } else {
            format!("{}'s", self.thread_name(copy.issuer))
        };
        let outcome = if a.write {
            "the copy may land before this write or after it"
        } else {
            "this read sees whatever shared memory holds at that moment"
        };
        let (what, lands, fix) = if copy.bulk {
            (
                "bulk copy (cp.async.bulk, the TMA)",
                "only when the mbarrier it counts its bytes on completes its phase",
                "Wait on that mbarrier first (mbarrier.try_wait, or cuda::barrier's wait) in \
                 every thread that touches the tile",
            )
        } else {
            (
                "cp.async",
                "only when its group is waited on (cp.async.wait_group or wait_all, \
                 pipeline.consumer_wait(), the barrier a cuda::memcpy_async completes)",
                "Wait for the copy first (and, where another thread issued it, \
                 __syncthreads() after the wait)",
            )
        };
        let message = format!(
            "{} {} {element} (shared memory) here, while {who} {what} at line {} is still \
             copying into it: an asynchronous copy writes its destination {lands}, so \
             {outcome}. {fix}",
            describe(&t.thread),
            if a.write { "writes" } else { "reads" },
            self.lines.line(copy.line as usize),
        );
        self.hazards.add(Kind::Race, a.line, line, message);
    }

    /// A thread's words in messages, from its index in the launch (or,
    /// in a run of several ranks, in the run).
    pub fn thread_name(&self, index: u32) -> String {
        describe(&numbered(index, &self.origins, self.grid, self.block_dim))
    }

    fn out_of_bounds(&mut self, t: &ThreadState, a: Access, what: String) {
        let line = self.lines.line(a.line);
        if !self.hazards.known(Kind::OutOfBounds, line) {
            self.hazards.add(
                Kind::OutOfBounds,
                a.line,
                line,
                format!("{} {what}", describe(&t.thread)),
            );
        }
    }

    fn trace_touch(&mut self, t: &ThreadState, place: Place, off: usize, a: Access, inside: bool) {
        let Some(trace) = self.trace.as_mut() else {
            return;
        };
        let (slot, elem, lead) = match place {
            Place::Global(n, _) => (
                n,
                self.globals[n].element_bytes.max(1),
                self.globals[n].lead,
            ),
            Place::Shared(..) => (trace.variables().len() - 1, 4, 0),
            _ => return,
        };
        if off < lead {
            return;
        }
        let touch = Touch {
            element: (off - lead) / elem,
            invocation: t.index,
            workgroup: t.index / self.block_dim.iter().product::<u32>().max(1),
            launch: self.launch as u32,
            interval: t.epoch,
            write: a.write,
            atomic: a.atomic,
            outside: !inside,
            first: a.first,
            line: self.lines.line(a.line),
        };
        trace.touch_one(slot, touch);
    }
}

/// A shared-memory element's words: `tile[5]` (in units of the access's
/// width from the variable's start), or its byte offset.
pub(crate) fn shared_name(b: &BlockMemory, off: u64, width: usize) -> String {
    let var = b.names.iter().rev().find(|(at, _)| *at <= off);
    match var {
        Some((at, name)) => format!("`{name}[{}]`", (off - at) / width.max(1) as u64),
        None => format!("shared memory at byte {off}"),
    }
}

/// Reads an operand as bits of type `ty`.
#[inline]
pub fn read(t: &ThreadState, w: &World, o: &Operand, ty: Ty) -> u64 {
    let raw = match o {
        Operand::Reg(r) => t.regs[*r as usize],
        Operand::NotReg(r) => u64::from(t.regs[*r as usize] == 0),
        Operand::Imm(v) => *v,
        Operand::Float(f) => match ty {
            Ty::F64 => f.to_bits(),
            _ => u64::from((*f as f32).to_bits()),
        },
        Operand::Special(s) => special(t, w, *s),
        Operand::Addr(a) => *a,
        Operand::Mem(base, off) => read(t, w, base, Ty::U64).wrapping_add(*off as u64),
        _ => 0,
    };
    value::mask(raw, ty)
}

fn special(t: &ThreadState, w: &World, s: Sreg) -> u64 {
    let v = match s {
        Sreg::Tid(a) => t.tid[a as usize],
        Sreg::Ntid(a) => w.block_dim[a as usize],
        Sreg::Ctaid(a) => t.thread.block[a as usize],
        Sreg::Nctaid(a) => w.grid[a as usize],
        Sreg::Laneid => t.lane(),
        Sreg::Warpid => t.warp(),
        Sreg::Nwarpid => w.threads_per_block().div_ceil(32),
        Sreg::Clock | Sreg::Clock64 | Sreg::GlobalTimer => return w.instructions,
        Sreg::LanemaskLt => (1u32 << t.lane()) - 1,
        Sreg::LanemaskLe => ((1u64 << (t.lane() + 1)) - 1) as u32,
        Sreg::LanemaskEq => 1 << t.lane(),
        Sreg::LanemaskGe => !((1u32 << t.lane()) - 1),
        Sreg::LanemaskGt => !(((1u64 << (t.lane() + 1)) - 1) as u32),
        Sreg::ClusterCtarank => w.cluster_rank(t.thread.block),
        Sreg::ClusterNctarank => w.cluster.iter().product(),
        Sreg::ClusterCtaid(a) => t.thread.block[a as usize] % w.cluster[a as usize],
        Sreg::ClusterNctaid(a) => w.cluster[a as usize],
        Sreg::Clusterid(a) => t.thread.block[a as usize] / w.cluster[a as usize],
        Sreg::Nclusterid(a) => w.grid[a as usize].div_ceil(w.cluster[a as usize]),
        Sreg::Smid => 0,
        Sreg::DynamicSmemSize => w.dynamic_shared,
    };
    u64::from(v)
}

/// Writes `v` to a destination operand (a register, a vector's first, or `_`).
#[inline]
pub fn write(t: &mut ThreadState, o: &Operand, v: u64) {
    if let Operand::Reg(r) = o {
        t.regs[*r as usize] = v;
    }
}

/// A deadlock or divergence report, at `line`, once.
pub fn report(w: &mut World, kind: Kind, line: usize, message: String) {
    let mapped = w.lines.line(line);
    w.hazards.add(kind, line, mapped, message);
}
