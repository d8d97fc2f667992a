//! The asynchronous side of a block: `mbarrier` objects (arrivals, phases,
//! transaction counts) and `cp.async` copies from global to shared memory.
//!
//! An mbarrier orders memory as a release and an acquire do: an arrival
//! publishes what the arriving thread knows into the phase, and a wait
//! that sees the phase complete takes it over (see [`crate::hazard`]).
//! A `cp.async` reads its source when issued and writes its destination
//! when its group is waited on (see [`cp_async`]). A bulk or tensor copy
//! reads its source when issued and writes its destination when the
//! mbarrier it counts its bytes on completes its phase (see [`bulk`]);
//! until then its words are in flight, and any access to them races with
//! the copy.

use crate::exec::world::{Access, Cluster, World};
use crate::exec::world::{read, write};
use crate::hazard::Kind;
use crate::hazard::Strength;
use crate::memory::address::{self, Place};
use crate::memory::mbarrier::{BulkLanding, Inbound, Mbarrier};
use crate::parse::inst::{Inst, Operand, Space, Ty};
use crate::thread::{AsyncCopy, Stop, ThreadState};
use std::sync::Arc;

/// The block (by cluster rank, or `own`) and shared offset an mbarrier operand names.
fn offset(w: &World, t: &ThreadState, i: &Inst, o: &Operand, b: &Cluster) -> Option<(usize, u64)> {
    let a = w.address(t, o, i.space)?;
    match address::place(a) {
        Place::Shared(off, rank) => {
            let target = rank.map_or(b.own, |r| r as usize);
            (target < b.mems.len()).then_some((target, off))
        }
        _ => None,
    }
}

/// Runs an `mbarrier` instruction; `Some` where the thread must stop
/// (a wait that failed yields, and resumes after the instruction).
pub fn mbarrier(
    t: &mut ThreadState,
    i: &Inst,
    w: &mut World,
    cluster: &mut Cluster,
) -> Option<Stop> {
    let o = &i.operands;
    let verb = i.mods.first().map(String::as_str).unwrap_or("");
    let line = i.line as usize;
    let (addr_at, dst) = match verb {
        "init" | "inval" | "expect_tx" | "complete_tx" => (0, None),
        _ => (1, Some(0)),
    };
    let Some((target, off)) = o.get(addr_at).and_then(|a| offset(w, t, i, a, cluster)) else {
        let l = w.lines.line(line);
        w.hazards.add(
            Kind::OutOfBounds,
            line,
            l,
            format!(
                "{} gives an mbarrier instruction an address outside shared memory",
                crate::thread::describe(&t.thread)
            ),
        );
        t.pc += 1;
        return None;
    };
    let arg = |k: usize, t: &ThreadState, w: &World| o.get(k).map(|x| read(t, w, x, Ty::U64));
    let block = cluster.mems[cluster.own].block_index;
    let b = &mut cluster.mems[target];
    b.barrier_changes += 1;
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
            let count = if expect_tx {
                1
            } else {
                arg(2, t, w).unwrap_or(1) as u32
            };
            let tx = if expect_tx {
                arg(2, t, w).unwrap_or(0) as i64
            } else {
                0
            };
            let Some(m) = b.mbarriers.get_mut(&off) else {
                return uninitialized(t, w, line);
            };
            let token = m.phase;
            t.release_into(&mut m.gathering, block);
            m.tx += tx;
            m.pending = m.pending.saturating_sub(count);
            if verb == "arrive_drop" {
                m.expected = m.expected.saturating_sub(1);
            }
            let landed = m.complete_if_due();
            w.changes += u64::from(b.land(landed));
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
            let landed = m.complete_if_due();
            w.changes += u64::from(b.land(landed));
        }
        "try_wait" | "test_wait" => {
            // A wait is no change, unless bulk copies were on their way: they
            // are counted now, and may complete the phase.
            b.barrier_changes -= 1;
            let x = arg(2, t, w).unwrap_or(0);
            let Some(m) = b.mbarriers.get_mut(&off) else {
                return uninitialized(t, w, line);
            };
            if m.count_inbound() {
                let landed = m.complete_if_due();
                b.barrier_changes += 1;
                w.changes += u64::from(b.land(landed));
            }
            let parity = i.has("parity");
            let Some(m) = b.mbarriers.get(&off) else {
                return uninitialized(t, w, line);
            };
            // With `.parity`: the phase of that parity has completed when the
            // current phase's parity differs. Otherwise `x` is an arrival's token.
            let done = if parity {
                (m.phase & 1) != (x & 1)
            } else {
                m.phase > x
            };
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
        line,
        l,
        format!(
            "{} uses an mbarrier that no thread of its block initialized (mbarrier.init)",
            crate::thread::describe(&t.thread)
        ),
    );
    t.pc += 1;
    None
}

/// `cp.async.{ca,cg}.shared.global [dst], [src], size{, src_size}` and its
/// group instructions; false where not implemented.
///
/// A copy reads its source when issued (as the issuing thread's reads) and
/// lands in shared memory only when its group is waited on, or at the
/// thread's `cp.async.mbarrier.arrive`: until then its destination words
/// are in flight, and any access to them races with the copy
/// (`World::copy_in_flight`, [`crate::memory::in_flight`]). Its bytes land
/// as the issuing thread's writes at the wait, where the block's next
/// barrier orders them.
pub fn cp_async(t: &mut ThreadState, i: &Inst, w: &mut World, b: &mut Cluster) -> bool {
    let o = &i.operands;
    if i.has("commit_group") {
        let group = std::mem::take(&mut t.copies.open);
        t.copies.committed.push_back(group);
        return true;
    }
    if i.has("wait_all") {
        let group = std::mem::take(&mut t.copies.open);
        t.copies.committed.push_back(group);
        land(t, w, b, 0);
        return true;
    }
    if i.has("wait_group") || i.has("wait_group.read") {
        let keep = o.first().map_or(0, |n| read(t, w, n, Ty::U32)) as usize;
        land(t, w, b, keep);
        return true;
    }
    if i.has("bulk") {
        return bulk(t, i, w, b);
    }
    if i.has("mbarrier") {
        // cp.async.mbarrier.arrive[.noinc]: the thread's copies land, then
        // count as an arrival.
        let open = std::mem::take(&mut t.copies.open);
        t.copies.committed.push_back(open);
        land(t, w, b, 0);
        if let Some((target, off)) = o.first().and_then(|a| offset(w, t, i, a, b)) {
            let block = b.mems[b.own].block_index;
            let b = &mut b.mems[target];
            if let Some(m) = b.mbarriers.get_mut(&off) {
                t.release_into(&mut m.gathering, block);
                if !i.has("noinc") {
                    m.pending += 1;
                }
                m.pending = m.pending.saturating_sub(1);
                let landed = m.complete_if_due();
                w.changes += u64::from(b.land(landed));
                b.barrier_changes += 1;
            }
        }
        return true;
    }
    let (Some(dst), Some(src)) = (
        w.address(t, &o[0], crate::parse::inst::Space::Shared),
        w.address(t, &o[1], crate::parse::inst::Space::Global),
    ) else {
        return true;
    };
    let size = o.get(2).map_or(16, |x| read(t, w, x, Ty::U32)).min(256);
    let src_size = o.get(3).map_or(size, |x| read(t, w, x, Ty::U32));
    let line = i.line as usize;
    // cp.async copies 4, 8 or 16 bytes.
    let size = size.min(16);
    let mut bytes = [0u8; 16];
    let mut len = 0;
    let mut k = 0;
    while k < size {
        let width = (size - k).min(4) as u32;
        let v = if k < src_size {
            let a = Access {
                addr: src.wrapping_add(k),
                width,
                write: false,
                atomic: false,
                strength: Strength::Plain,
                first: k == 0,
                line,
            };
            w.load(t, b, a)
        } else {
            0
        };
        bytes[len..len + width as usize].copy_from_slice(&v.to_le_bytes()[..width as usize]);
        len += width as usize;
        k += u64::from(width);
    }
    if let Place::Shared(off, None) = address::place(dst)
        && len > 0
    {
        let mem = &mut b.mems[b.own];
        let first = off as usize / 4;
        let last = (off as usize + len - 1) / 4;
        for word in first..=last {
            let copy = crate::memory::in_flight::Copy {
                issuer: t.index,
                line: line as u32,
                bulk: false,
            };
            mem.in_flight.insert(word, copy);
        }
    }
    t.copies.open.push(AsyncCopy {
        dst,
        bytes,
        len: len as u8,
        line,
    });
    true
}

/// Lands the thread's committed copy groups but the newest `keep`: their
/// words leave flight, and their bytes are written as the thread's own.
fn land(t: &mut ThreadState, w: &mut World, b: &mut Cluster, keep: usize) {
    while t.copies.committed.len() > keep {
        let Some(group) = t.copies.committed.pop_front() else {
            break;
        };
        for copy in group {
            if let Place::Shared(off, None) = address::place(copy.dst) {
                let mem = &mut b.mems[b.own];
                let first = off as usize / 4;
                let last = (off as usize + copy.bytes().len()).saturating_sub(1) / 4;
                for word in first..=last {
                    mem.in_flight.land(word, t.index);
                }
            }
            for (k, chunk) in copy.bytes().chunks(4).enumerate() {
                let mut word = [0u8; 8];
                word[..chunk.len()].copy_from_slice(chunk);
                let a = Access {
                    addr: copy.dst.wrapping_add(4 * k as u64),
                    width: chunk.len() as u32,
                    write: true,
                    atomic: false,
                    strength: Strength::Plain,
                    first: k == 0,
                    line: copy.line,
                };
                w.store(t, b, a, u64::from_le_bytes(word));
            }
        }
    }
}

/// The shared-memory address of byte `l` of a box, under the tensor map's
/// swizzle: bits 4.. of the address XORed with bits 7.. (CUTLASS's
/// Swizzle<B, 4, 3>, B = 1, 2, 3 for 32, 64 and 128 bytes).
pub fn swizzled(l: u64, swizzle: u32) -> u64 {
    let bits = match swizzle {
        32 => 1,
        64 => 2,
        128 => 3,
        _ => return l,
    };
    l ^ ((l >> 3) & (((1u64 << bits) - 1) << 4))
}

/// Sends `bytes` of a bulk copy to the mbarrier at `mbar` (a shared
/// address, maybe another block's), with a release by the issuing thread.
/// The copy is counted, and its bytes for that block (`landing`) land, only
/// when a thread next waits on the mbarrier: the copy engine finishes at a
/// time of its own, and only a wait that sees the phase complete is ordered
/// after it. With no mbarrier there, the bytes land at once.
fn send(
    t: &mut ThreadState,
    w: &mut World,
    b: &mut Cluster,
    mbar: u64,
    bytes: u64,
    landing: BulkLanding,
) {
    let Place::Shared(off, rank) = address::place(mbar) else {
        return;
    };
    let target = rank.map_or(b.own, |r| r as usize);
    let block = b.mems[b.own].block_index;
    if let Some(mem) = b.mems.get_mut(target) {
        match mem.mbarriers.get_mut(&off) {
            Some(m) => {
                let mut release = (*t.knows).clone();
                let r = release.threads.entry(t.index).or_insert(0);
                *r = (*r).max(t.released + 1);
                let e = release.blocks.entry(block).or_insert(0);
                *e = (*e).max(t.epoch);
                m.inbound.push(Inbound {
                    bytes,
                    release,
                    landing,
                });
            }
            None => w.changes += u64::from(mem.land(vec![landing])),
        }
    }
    t.released += 1;
}

/// The bulk copies of the TMA: `cp.async.bulk` (bytes) and
/// `cp.async.bulk.tensor.{1..5}d` (a box of a tensor map), global to shared,
/// counted on an mbarrier, to one block or (`.multicast::cluster`) to the
/// blocks of a mask. The source is read when issued, as the issuing
/// thread's reads; the destination is claimed then (checked for races as
/// the issuing thread's writes) and put in flight, and its bytes are
/// written when the mbarrier's phase completes (see [`complete_tx`]).
fn bulk(t: &mut ThreadState, i: &Inst, w: &mut World, b: &mut Cluster) -> bool {
    let o = &i.operands;
    let line = i.line as usize;
    let shared_dst = i.mods.iter().position(|m| m.starts_with("shared"))
        < i.mods.iter().position(|m| m == "global");
    if !shared_dst {
        return false;
    }
    let Some(dst) = w.address(t, &o[0], Space::Shared) else {
        return true;
    };
    let own_rank = b.own as u64;
    // Destinations: this block, or each block of the multicast mask.
    let targets: Vec<u64> = if i.has("multicast::cluster") {
        let mask = o.get(3).map_or(1, |m| read(t, w, m, Ty::U16));
        (0..16).filter(|r| mask & (1 << r) != 0).collect()
    } else {
        vec![u64::MAX]
    };
    let retarget = |addr: u64, rank: u64| {
        if rank == u64::MAX {
            return addr;
        }
        let off = addr.wrapping_sub(address::SHARED) & 0xFF_FFFF;
        address::SHARED + (address::CLUSTER_BIT | (rank << 24) | off)
    };
    let _ = own_rank;
    let mbar_op = if i.has("tensor") { &o[2] } else { &o[3] };
    let Some(mbar) = w.address(t, mbar_op, Space::Shared) else {
        return true;
    };
    // Bytes to copy: (source address or None for a zero fill, offset in the destination).
    let mut copies: Vec<(Option<u64>, u64, u32)> = Vec::new();
    if i.has("tensor") {
        let Operand::Mem(inner, _) = &o[1] else {
            return false;
        };
        let Operand::Vector(parts) = inner.as_ref() else {
            return false;
        };
        let Some(map_addr) = parts.first().map(|p| read(t, w, p, Ty::U64)) else {
            return false;
        };
        let coords: Vec<i64> = match parts.get(1) {
            Some(Operand::Vector(c)) => c
                .iter()
                .map(|x| read(t, w, x, Ty::U32) as u32 as i32 as i64)
                .collect(),
            Some(x) => vec![read(t, w, x, Ty::U32) as u32 as i32 as i64],
            None => vec![],
        };
        let Place::Param(at) = address::place(map_addr) else {
            return false;
        };
        let Some(map) = w.tensor_maps.get(&at).cloned() else {
            return false;
        };
        let eb = u64::from(map.element_bytes);
        let base = match w.globals.get(map.buffer) {
            Some(r) => address::global_address(map.buffer, r.lead as u64),
            None => return false,
        };
        // The box, innermost dimension first, walked in the order it lands
        // in shared memory; each element's source is its coordinates in the
        // tensor, or none (a zero) past any of its edges.
        let rank = map.box_dims.len().max(1);
        let boxes: Vec<u64> = (0..rank)
            .map(|d| u64::from(*map.box_dims.get(d).unwrap_or(&1)).max(1))
            .collect();
        let elements: u64 = boxes.iter().product();
        for l in 0..elements {
            let (mut rest, mut offset, mut stride, mut inside) = (l, 0u64, 1u64, true);
            for (d, &size) in boxes.iter().enumerate() {
                let within = rest % size;
                rest /= size;
                let x = coords
                    .get(d)
                    .copied()
                    .unwrap_or(0)
                    .wrapping_add(within as i64);
                let dim = *map.dims.get(d).unwrap_or(&1);
                inside &= x >= 0 && (x as u64) < dim;
                offset = offset.wrapping_add((x as u64).wrapping_mul(stride));
                stride = stride.wrapping_mul(dim);
            }
            let src = inside.then(|| base.wrapping_add(offset.wrapping_mul(eb)));
            copies.push((src, l * eb, eb as u32));
        }
        let dst_off = dst.wrapping_sub(address::SHARED);
        for c in &mut copies {
            c.1 = swizzled((dst_off & 0xFF_FFFF) + c.1, map.swizzle) - (dst_off & 0xFF_FFFF);
        }
    } else {
        let Some(src) = w.address(t, &o[1], Space::Global) else {
            return true;
        };
        // A bulk copy moves at most the shared memory a block has.
        let size = read(t, w, &o[2], Ty::U32).min(crate::launch::MAX_SHARED_BYTES);
        let mut k = 0;
        while k < size {
            let width = (size - k).min(4) as u32;
            copies.push((Some(src.wrapping_add(k)), k, width));
            k += u64::from(width);
        }
    }
    let total: u64 = copies.iter().map(|c| u64::from(c.2)).sum();
    for &rank in &targets {
        let mut landing = BulkLanding {
            issuer: t.index,
            pieces: Vec::with_capacity(copies.len()),
        };
        // The block whose shared memory this copy writes.
        let mut target_of = None;
        for &(src, l, width) in &copies {
            let v = match src {
                Some(s) => {
                    let a = Access {
                        addr: s,
                        width,
                        write: false,
                        atomic: false,
                        strength: Strength::Plain,
                        first: false,
                        line,
                    };
                    w.load(t, b, a)
                }
                None => 0,
            };
            let addr = retarget(dst.wrapping_add(l), rank);
            let a = Access {
                addr,
                width,
                write: true,
                atomic: false,
                strength: Strength::Plain,
                first: false,
                line,
            };
            w.claim(t, b, a);
            if let Place::Shared(off, r) = address::place(addr) {
                landing.pieces.push((off as u32, v, width as u8));
                target_of.get_or_insert(r.map_or(b.own, |r| r as usize));
            }
        }
        // The copy's words go in flight once all are claimed: two pieces of
        // one word (2-byte elements) are one copy, not a race.
        let copy = crate::memory::in_flight::Copy {
            issuer: t.index,
            line: line as u32,
            bulk: true,
        };
        if let Some(mem) = target_of.and_then(|k| b.mems.get_mut(k)) {
            let size = mem.shared.bytes.len();
            landing
                .pieces
                .retain(|&(off, _, width)| off as usize + usize::from(width) <= size);
            for &(off, _, width) in &landing.pieces {
                let (off, width) = (off as usize, usize::from(width));
                for word in off / 4..=(off + width - 1) / 4 {
                    mem.in_flight.insert(word, copy);
                }
            }
        }
        send(t, w, b, retarget(mbar, rank), total, landing);
    }
    true
}
