//! The asynchronous side of a block: `mbarrier` objects (arrivals, phases,
//! transaction counts) and `cp.async` copies from global to shared memory.
//!
//! An mbarrier orders memory as a release and an acquire do: an arrival
//! publishes what the arriving thread knows into the phase, and a wait
//! that sees the phase complete takes it over (see [`crate::hazard`]).
//! `cp.async` copies are made when issued, as the issuing thread's own
//! accesses: its later `cp.async.wait_group` and a barrier then order them
//! for the block exactly as the hardware's completion would.

use crate::exec::{Stop, ThreadState, read, write};
use crate::exec_mem::{Access, BlockMemory, World};
use crate::hazard::{Kind, Knowledge};
use crate::memory::{self, Place};
use crate::parse_inst::{Inst, Operand, Ty};
use std::sync::Arc;

/// One mbarrier object.
#[derive(Debug, Clone, Default)]
pub struct Mbarrier {
    pub expected: u32,
    pub pending: u32,
    pub tx: i64,
    /// Completed phases.
    pub phase: u64,
    pub gathering: Knowledge,
    pub completed: Knowledge,
}

impl Mbarrier {
    fn complete_if_due(&mut self) {
        if self.pending == 0 && self.tx <= 0 {
            self.phase += 1;
            self.pending = self.expected;
            self.tx = 0;
            let g = std::mem::take(&mut self.gathering);
            self.completed.merge(&g);
        }
    }
}

/// The shared offset an mbarrier operand names.
fn offset(w: &World, t: &ThreadState, i: &Inst, o: &Operand) -> Option<u64> {
    let a = w.address(t, o, i.space)?;
    match memory::place(a) {
        Place::Shared(off, _) => Some(off),
        _ => None,
    }
}

/// Publishes what `t` knows into an mbarrier's phase.
fn arrive_knowledge(t: &mut ThreadState, block: u32, m: &mut Mbarrier) {
    m.gathering.merge(&t.knows);
    let r = m.gathering.threads.entry(t.index).or_insert(0);
    *r = (*r).max(t.released + 1);
    let e = m.gathering.blocks.entry(block).or_insert(0);
    *e = (*e).max(t.epoch);
    t.released += 1;
}

/// Runs an `mbarrier` instruction; `Some` where the thread must stop
/// (a wait that failed yields, and resumes after the instruction).
pub fn mbarrier(t: &mut ThreadState, i: &Inst, w: &mut World, b: &mut BlockMemory) -> Option<Stop> {
    let o = &i.operands;
    let verb = i.mods.first().map(String::as_str).unwrap_or("");
    let line = i.line as usize;
    let (addr_at, dst) = match verb {
        "init" | "inval" | "expect_tx" | "complete_tx" => (0, None),
        _ => (1, Some(0)),
    };
    let Some(off) = o.get(addr_at).and_then(|a| offset(w, t, i, a)) else {
        let l = w.lines.line(line);
        w.hazards.add(
            Kind::OutOfBounds,
            l,
            format!("{} gives an mbarrier instruction an address outside shared memory", crate::exec::describe(&t.thread)),
        );
        t.pc += 1;
        return None;
    };
    let arg = |k: usize, t: &ThreadState, w: &World| o.get(k).map(|x| read(t, w, x, Ty::U64));
    b.mbarrier_changes += 1;
    match verb {
        "init" => {
            let count = arg(1, t, w).unwrap_or(1) as u32;
            b.mbarriers.insert(
                off,
                Mbarrier {
                    expected: count,
                    pending: count,
                    ..Mbarrier::default()
                },
            );
            // The object's bytes are written: reading them is not uninitialized.
            if let Some(s) = b.shared.shadow.get_mut(off as usize / 4) {
                s.mark_written(0xF);
            }
            if let Some(s) = b.shared.shadow.get_mut(off as usize / 4 + 1) {
                s.mark_written(0xF);
            }
        }
        "inval" => {
            b.mbarriers.remove(&off);
        }
        "arrive" | "arrive_drop" => {
            let expect_tx = i.has("expect_tx");
            let count = if expect_tx { 1 } else { arg(2, t, w).unwrap_or(1) as u32 };
            let tx = if expect_tx { arg(2, t, w).unwrap_or(0) as i64 } else { 0 };
            let block = b.block_index;
            let Some(m) = b.mbarriers.get_mut(&off) else {
                return uninitialized(t, w, line);
            };
            let token = m.phase;
            arrive_knowledge(t, block, m);
            m.tx += tx;
            m.pending = m.pending.saturating_sub(count);
            if verb == "arrive_drop" {
                m.expected = m.expected.saturating_sub(1);
            }
            m.complete_if_due();
            if let Some(d) = dst.and_then(|d| o.get(d)) {
                write(t, d, token);
            }
        }
        "expect_tx" => {
            let tx = arg(1, t, w).unwrap_or(0) as i64;
            let Some(m) = b.mbarriers.get_mut(&off) else {
                return uninitialized(t, w, line);
            };
            m.tx += tx;
        }
        "complete_tx" => {
            let tx = arg(1, t, w).unwrap_or(0) as i64;
            let Some(m) = b.mbarriers.get_mut(&off) else {
                return uninitialized(t, w, line);
            };
            m.tx -= tx;
            m.complete_if_due();
        }
        "try_wait" | "test_wait" => {
            b.mbarrier_changes -= 1;
            let parity = i.has("parity");
            let x = arg(2, t, w).unwrap_or(0);
            let Some(m) = b.mbarriers.get(&off) else {
                return uninitialized(t, w, line);
            };
            // With `.parity`: the phase of that parity has completed when the
            // current phase's parity differs. Otherwise `x` is an arrival's token.
            let done = if parity { (m.phase & 1) != (x & 1) } else { m.phase > x };
            if done {
                let k = m.completed.clone();
                if !k.is_empty() {
                    Arc::make_mut(&mut t.knows).merge(&k);
                }
            }
            if let Some(d) = dst.and_then(|d| o.get(d)) {
                write(t, d, u64::from(done));
            }
            if !done {
                t.pc += 1;
                return Some(Stop::Wait);
            }
        }
        _ => {
            t.pc += 1;
            return None;
        }
    }
    t.pc += 1;
    None
}

/// An mbarrier used before `mbarrier.init`: reported, and the thread goes on.
fn uninitialized(t: &mut ThreadState, w: &mut World, line: usize) -> Option<Stop> {
    let l = w.lines.line(line);
    w.hazards.add(
        Kind::Uninitialized,
        l,
        format!(
            "{} uses an mbarrier that no thread of its block initialized (mbarrier.init)",
            crate::exec::describe(&t.thread)
        ),
    );
    t.pc += 1;
    None
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src_size}` and its
/// group instructions; false where not implemented.
pub fn cp_async(t: &mut ThreadState, i: &Inst, w: &mut World, b: &mut BlockMemory) -> bool {
    let o = &i.operands;
    if i.has("commit_group") || i.has("wait_group") || i.has("wait_all") {
        return true;
    }
    if i.has("mbarrier") {
        // cp.async.mbarrier.arrive[.noinc]: the thread's copies count as an arrival.
        if let Some(off) = o.first().and_then(|a| offset(w, t, i, a)) {
            let block = b.block_index;
            if let Some(m) = b.mbarriers.get_mut(&off) {
                arrive_knowledge(t, block, m);
                if !i.has("noinc") {
                    m.pending += 1;
                }
                m.pending = m.pending.saturating_sub(1);
                m.complete_if_due();
                b.mbarrier_changes += 1;
            }
        }
        return true;
    }
    let (Some(dst), Some(src)) = (
        w.address(t, &o[0], crate::parse_inst::Space::Shared),
        w.address(t, &o[1], crate::parse_inst::Space::Global),
    ) else {
        return true;
    };
    let size = o.get(2).map_or(16, |x| read(t, w, x, Ty::U32));
    let src_size = o.get(3).map_or(size, |x| read(t, w, x, Ty::U32));
    let line = i.line as usize;
    let mut k = 0;
    while k < size {
        let width = (size - k).min(4) as u32;
        let v = if k < src_size {
            let a = Access {
                addr: src + k,
                width,
                write: false,
                atomic: false,
                first: k == 0,
                line,
            };
            w.load(t, b, a)
        } else {
            0
        };
        let a = Access {
            addr: dst + k,
            width,
            write: true,
            atomic: false,
            first: k == 0,
            line,
        };
        w.store(t, b, a, v);
        k += u64::from(width);
    }
    true
}

/// An access to another block's shared memory (a cluster's distributed
/// shared memory): not run by the checker yet.
pub fn remote_shared(_w: &mut World, _t: &mut ThreadState, _a: Access, _store: Option<u64>) -> u64 {
    0
}
