//! Warp operations (`shfl.sync`, `vote.sync`, `bar.warp.sync`): a lane that
//! reaches one waits until every lane its member mask names has reached
//! one too, then all of them go on together. A mask that names a lane
//! which has exited is a deadlock (a GPU hangs there); lanes of one mask
//! at different warp operations, or a lane missing from its own mask, are
//! a subgroup operation in non-uniform control flow.

use crate::exec::world::{Cluster, World};
use crate::exec::world::{read, report, write};
use crate::hazard::Kind;
use crate::parse::inst::{Op, Ty};
use crate::parse::module::Kernel;
use crate::thread::{Stop, ThreadState, describe};

/// What a pass over the warps did.
pub enum Resolved {
    /// Some warp operation completed: threads can go on.
    Some,
    None,
    /// A warp operation can never complete: reported, the run stops.
    Deadlock,
}

/// Completes every warp operation whose lanes have all arrived.
pub fn resolve(
    kernel: &Kernel,
    threads: &mut [ThreadState],
    w: &mut World,
    mem: &mut Cluster<'_>,
) -> Resolved {
    let mut any = crate::exec::matrix::resolve_warpgroups(kernel, threads, w, mem);
    any |= active_masks(kernel, threads);
    let is_group_op = |t: &ThreadState| {
        kernel
            .body
            .get(t.pc)
            .is_some_and(|i| matches!(i.op, Op::Wgmma | Op::Activemask))
    };
    let warps = threads.len().div_ceil(32);
    // Lanes, reused from warp to warp: this runs after every slice of
    // every block, and three fresh vectors a warp stood out in the profile
    // of a tensor-core kernel's check (Puzzle 45's).
    let (mut waiting, mut group, mut same) = (
        Vec::with_capacity(32),
        Vec::with_capacity(32),
        Vec::with_capacity(32),
    );
    for warp in 0..warps {
        let lo = warp * 32;
        let hi = (lo + 32).min(threads.len());
        waiting.clear();
        waiting.extend((lo..hi).filter(|&i| {
            matches!(threads[i].stop, Some(Stop::Warp { .. })) && !is_group_op(&threads[i])
        }));
        if waiting.is_empty() {
            continue;
        }
        // Lanes that exist in this warp.
        let present: u32 = if hi - lo == 32 {
            u32::MAX
        } else {
            (1u32 << (hi - lo)) - 1
        };
        let mut done = [false; 32];
        for &i in &waiting {
            let lane = i - lo;
            if done[lane] {
                continue;
            }
            let Some(Stop::Warp { mask }) = threads[i].stop else {
                continue;
            };
            let needed = mask & present;
            let pc = threads[i].pc;
            let line = kernel.body.get(pc).map_or(0, |x| x.line as usize);
            if needed & (1 << lane) == 0 {
                let message = format!(
                    "{} runs a warp operation whose mask {mask:#010x} leaves out its own lane {lane}",
                    describe(&threads[i].thread)
                );
                report(w, Kind::DivergentSubgroup, line, message);
            }
            // Has every named lane arrived?
            group.clear();
            let mut blocked = false;
            for l in 0..32 {
                if needed & (1 << l) == 0 {
                    continue;
                }
                let j = lo + l;
                match threads[j].stop {
                    Some(Stop::Warp { .. }) => group.push(j),
                    Some(Stop::Done) => {
                        let message = format!(
                            "{} waits at a warp operation whose mask {mask:#010x} names lane {l}, \
                             which has returned: a lane named in the mask must reach the operation, \
                             or the GPU waits for it forever. Pass the mask of the lanes that get \
                             here (__activemask() or __ballot_sync before the branch)",
                            describe(&threads[i].thread)
                        );
                        report(w, Kind::Deadlock, line, message);
                        return Resolved::Deadlock;
                    }
                    _ => blocked = true,
                }
            }
            if blocked {
                continue;
            }
            // Every named lane is at a warp operation: the same one, with the same mask?
            same.clear();
            same.extend(
                group
                    .iter()
                    .copied()
                    .filter(|&j| threads[j].pc == pc && threads[j].stop == threads[i].stop),
            );
            if same.len() < group.len() {
                let other = group
                    .iter()
                    .find(|&&j| threads[j].pc != pc || threads[j].stop != threads[i].stop);
                let other_line = other
                    .and_then(|&j| kernel.body.get(threads[j].pc))
                    .map_or(0, |x| w.lines.line(x.line as usize));
                let message = format!(
                    "{} runs a warp operation with mask {mask:#010x}, but lanes of that mask are at \
                     another warp operation (line {other_line}) or pass another mask: every lane \
                     named in the mask must run the same one with the same mask",
                    describe(&threads[i].thread)
                );
                report(w, Kind::DivergentSubgroup, line, message);
            }
            execute(kernel, threads, &same, lo, w, mem);
            for &j in &same {
                done[j - lo] = true;
                threads[j].pc += 1;
                threads[j].stop = None;
            }
            any = true;
        }
    }
    if any { Resolved::Some } else { Resolved::None }
}

/// `__activemask()`: once no lane of the warp can run on without the
/// others (each has stopped somewhere, or returned), the lanes stopped at
/// the same `activemask` are the ones that reached it together, and that
/// is the mask each of them gets. (Lanes of a warp are not in lockstep,
/// so a GPU may give fewer: the mask is no promise of convergence, as
/// NVIDIA's documentation warns.) True where some lane got its mask.
fn active_masks(kernel: &Kernel, threads: &mut [ThreadState]) -> bool {
    let at_activemask = |t: &ThreadState| {
        matches!(t.stop, Some(Stop::Warp { .. }))
            && kernel
                .body
                .get(t.pc)
                .is_some_and(|i| i.op == Op::Activemask)
    };
    let mut any = false;
    for lo in (0..threads.len()).step_by(32) {
        let hi = (lo + 32).min(threads.len());
        let lanes = &mut threads[lo..hi];
        let settled = lanes
            .iter()
            .all(|t| !matches!(t.stop, None | Some(Stop::Slice | Stop::Wait | Stop::Spin)));
        if !settled || !lanes.iter().any(at_activemask) {
            continue;
        }
        let pcs: Vec<usize> = lanes
            .iter()
            .filter(|t| at_activemask(t))
            .map(|t| t.pc)
            .collect();
        for pc in pcs {
            let mask = lanes
                .iter()
                .enumerate()
                .filter(|(_, t)| t.pc == pc && at_activemask(t))
                .fold(0u64, |m, (l, _)| m | (1 << l));
            for t in lanes.iter_mut().filter(|t| t.pc == pc && at_activemask(t)) {
                if let Some(d) = kernel.body[pc].operands.first() {
                    write(t, d, mask);
                }
                t.pc += 1;
                t.stop = None;
                any = true;
            }
        }
    }
    any
}

/// Carries out the warp operation at the group's pc for the lanes of `group`.
fn execute(
    kernel: &Kernel,
    threads: &mut [ThreadState],
    group: &[usize],
    lo: usize,
    w: &mut World,
    mem: &mut Cluster<'_>,
) {
    let Some(&first) = group.first() else {
        return;
    };
    let Some(inst) = kernel.body.get(threads[first].pc) else {
        return;
    };
    let o = &inst.operands;
    let member = |j: usize| group.contains(&j);
    match inst.op {
        Op::Ldmatrix | Op::Mma | Op::Wmma => {
            crate::exec::matrix::execute(inst, threads, group, lo, w, mem)
        }
        Op::Shfl => {
            let mode = inst.mods.get(1).map(String::as_str).unwrap_or("idx");
            // `d|p, a, b, c, mask` or `d, a, b, c, mask`.
            let at = o.len().saturating_sub(5);
            let values: Vec<u64> = group
                .iter()
                .map(|&j| read(&threads[j], w, &o[1 + at], Ty::B32))
                .collect();
            let mut results = Vec::new();
            for (k, &j) in group.iter().enumerate() {
                let t = &threads[j];
                let lane = (j - lo) as i64;
                let b = read(t, w, &o[2 + at], Ty::U32) as i64 & 0x1f;
                let c = read(t, w, &o[3 + at], Ty::U32) as i64;
                let seg = (c >> 8) & 0x1f;
                let max_lane = (lane & seg) | ((c & 0x1f) & !seg);
                let min_lane = lane & seg;
                let (src, valid) = match mode {
                    "up" => (lane - b, lane - b >= max_lane),
                    "down" => (lane + b, lane + b <= max_lane),
                    "bfly" => (lane ^ b, (lane ^ b) <= max_lane),
                    _ => {
                        let s = min_lane | (b & !seg);
                        (s, s <= max_lane)
                    }
                };
                let src = if valid { src } else { lane };
                let from = lo + src as usize;
                let v = match group.iter().position(|&g| g == from) {
                    Some(p) => values[p],
                    None => {
                        // A lane outside the group: CUDA leaves the value undefined.
                        if from < threads.len() && !member(from) && src != lane {
                            let line = inst.line as usize;
                            let message = format!(
                                "{} reads lane {src} through a shuffle, but lane {src} is not in the \
                                 shuffle's mask: the value is undefined",
                                describe(&threads[j].thread)
                            );
                            report(w, Kind::DivergentSubgroup, line, message);
                        }
                        values[k]
                    }
                };
                results.push((v, valid));
            }
            for (k, &j) in group.iter().enumerate() {
                let (v, valid) = results[k];
                write(&mut threads[j], &o[0], v);
                if at == 1 {
                    write(&mut threads[j], &o[1], u64::from(valid));
                }
            }
        }
        Op::Vote => {
            let mode = inst.mods.get(1).map(String::as_str).unwrap_or("any");
            let preds: Vec<bool> = group
                .iter()
                .map(|&j| read(&threads[j], w, &o[1], Ty::Pred) != 0)
                .collect();
            let ballot: u64 = group
                .iter()
                .zip(&preds)
                .filter(|(_, p)| **p)
                .fold(0, |acc, (&j, _)| acc | (1 << (j - lo)));
            let v = match mode {
                "all" => u64::from(preds.iter().all(|&p| p)),
                "any" => u64::from(preds.iter().any(|&p| p)),
                "uni" => u64::from(preds.iter().all(|&p| p) || preds.iter().all(|&p| !p)),
                _ => ballot,
            };
            for &j in group {
                write(&mut threads[j], &o[0], v);
            }
        }
        _ => {
            // bar.warp.sync: the lanes' memory accesses are ordered across it.
            for &j in group {
                threads[j].warp_epoch += 1;
            }
        }
    }
}
