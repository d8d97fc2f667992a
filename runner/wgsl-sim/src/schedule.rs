//! The dispatch: workgroups one after another, and inside a workgroup the
//! invocations in a seeded random order between barriers. Each invocation
//! runs until it reaches a barrier, a subgroup operation or its end; when
//! every invocation has stopped, subgroup operations are resolved first,
//! then the barrier is checked (all reached the same one, or none) and they
//! all go on. The order only shapes the outputs of a racy kernel; the
//! checks do not depend on it.
//!
//! Subgroups are runs of `subgroup_size` consecutive local invocation
//! indices. A subgroup operation is a rendezvous of the subgroup's
//! invocations stopped at that same operation: those are its active
//! invocations. WGSL requires subgroup-uniform control flow there, so a
//! member elsewhere (finished, at a barrier, at another operation) is
//! reported. A gather from a lane that is not active or does not exist
//! (`subgroupShuffleDown` past the end) gives the reader its own value, as
//! CUDA's `__shfl_down_sync` does; WGSL leaves the value indeterminate.
//! Subgroup operations order no memory for the race check: only
//! workgroup and storage barriers do.

use super::exec::{Invocation, Pending, State, SubgroupOp};
use super::hazard::{Kind, Shadow};
use super::memory::Space;
use super::program::{Fault, Program, unsupported};
use super::shared::{Ids, Shared, triple};
use super::value::{self, OpError, Scalar, Value};
use crate::launch::Launch;
use naga::{Barrier, Span};
use std::collections::BTreeMap;

/// The seeded generator, shared with the other checker: a schedule can be replayed.
pub use gpu_hazard::Rng;

/// Grids up to this many workgroups run in a shuffled order; larger ones in
/// a seeded stride (a list of every workgroup would cost memory before the
/// first one ran).
const SHUFFLED_WORKGROUPS: u32 = 1 << 16;

/// The order `count` workgroups run in, seeded by `rng`.
fn workgroup_order(count: u32, rng: &mut Rng) -> Box<dyn Iterator<Item = u32>> {
    if count <= SHUFFLED_WORKGROUPS {
        let mut order: Vec<u32> = (0..count).collect();
        rng.shuffle(&mut order);
        return Box::new(order.into_iter());
    }
    // i ↦ (a·i + b) mod n visits each workgroup once when a is coprime to n.
    let n = u64::from(count);
    let gcd = |mut x: u64, mut y: u64| {
        while y != 0 {
            (x, y) = (y, x % y);
        }
        x
    };
    let mut a = (rng.next_u64() % n) | 1;
    while gcd(a, n) != 1 {
        a = (a + 2) % n;
    }
    let b = rng.next_u64() % n;
    Box::new((0..n).map(move |i| ((a * i + b) % n) as u32))
}

/// Runs one launch of `entry` over its whole grid.
pub fn dispatch<'m>(
    prog: &Program<'m>,
    shared: &mut Shared,
    entry: &'m naga::EntryPoint,
    launch: &Launch,
    rng: &mut Rng,
) -> Result<(), Fault> {
    let (grid, block) = (launch.grid, launch.block);
    shared.block = block;
    // A new dispatch is ordered after everything the last one did (what
    // it wrote stays written).
    for region in shared.globals.iter_mut().flatten() {
        region.shadow.iter_mut().for_each(Shadow::new_launch);
    }
    // `run` refused launches of more than u32::MAX invocations, so these fit.
    let per_group = block.iter().product::<u32>();
    for w in workgroup_order(grid.iter().product::<u32>(), rng) {
        let workgroup = split(w, grid);
        begin_workgroup(prog, shared);
        let mut invocations = (0..per_group)
            .map(|l| {
                let local = split(l, block);
                let ids = Ids {
                    global: [0, 1, 2].map(|a| workgroup[a] * block[a] + local[a]),
                    local,
                    workgroup,
                    num_workgroups: grid,
                    local_index: l,
                    invocation: w * per_group + l,
                    workgroup_index: w,
                    subgroup_size: shared.subgroup_size,
                    per_group,
                };
                Invocation::new(prog, entry, ids)
            })
            .collect::<Result<Vec<_>, _>>()?;
        loop {
            let mut ready: Vec<usize> = (0..invocations.len())
                .filter(|&i| invocations[i].state == State::Ready)
                .collect();
            rng.shuffle(&mut ready);
            for i in ready {
                invocations[i]
                    .run(prog, shared)
                    .map_err(|f| who_waited(f, shared, &invocations, i, grid))?;
            }
            if subgroups(shared, &mut invocations, workgroup)? {
                continue;
            }
            if !rendezvous(shared, &mut invocations, workgroup) {
                break;
            }
        }
        for inv in &invocations {
            let thread = inv.thread(shared.launch);
            shared.access.finish(thread, inv.reads, inv.writes);
        }
    }
    Ok(())
}

/// `i` as coordinates in a box of `dims`, x fastest.
fn split(i: u32, dims: [u32; 3]) -> [u32; 3] {
    [i % dims[0], i / dims[0] % dims[1], i / (dims[0] * dims[1])]
}

/// Fresh workgroup memory (zeros, as WGSL specifies, and nothing written yet).
fn begin_workgroup(prog: &Program, shared: &mut Shared) {
    shared.epochs = [0, 0];
    for region in shared.globals.iter_mut().flatten() {
        if region.space == Space::Workgroup {
            region.slots.clear();
            prog.layout.zero(region.ty, &mut region.slots);
            region
                .shadow
                .iter_mut()
                .for_each(|s| *s = Default::default());
        }
    }
}

/// Every invocation has stopped: releases those at a barrier, after checking
/// that all of them reached the same one. False when all have finished.
fn rendezvous(shared: &mut Shared, invocations: &mut [Invocation], workgroup: [u32; 3]) -> bool {
    let waiting: Vec<(usize, Span, Barrier)> = invocations
        .iter()
        .enumerate()
        .filter_map(|(i, inv)| match inv.state {
            State::AtBarrier { span, flags } => Some((i, span, flags)),
            _ => None,
        })
        .collect();
    let Some(&(_, first, _)) = waiting.first() else {
        return false;
    };
    let finished = invocations.len() - waiting.len();
    let elsewhere: Vec<Span> = waiting
        .iter()
        .map(|w| w.1)
        .filter(|s| *s != first)
        .collect();
    if (finished > 0 || !elsewhere.is_empty()) && !shared.known(Kind::DivergentBarrier, first) {
        let at_first: Vec<[u32; 3]> = waiting
            .iter()
            .filter(|w| w.1 == first)
            .map(|w| invocations[w.0].ids.local)
            .collect();
        let others = match elsewhere.first() {
            Some(s) => format!(
                "others wait at the barrier at line {}",
                shared.lines.line(*s)
            ),
            None => format!("the other {finished} finished without reaching it"),
        };
        let message = format!(
            "this barrier is reached by {} of the {} invocations of workgroup {} ({}); {others}. \
             Every invocation of a workgroup must reach each barrier, the same number of times: \
             move it out of the `if` or loop that only some invocations enter (WGSL calls this \
             non-uniform control flow; a GPU may hang or skip it)",
            at_first.len(),
            invocations.len(),
            triple(workgroup),
            list_ids(&at_first),
        );
        shared.report(Kind::DivergentBarrier, first, message);
    }
    let flags = waiting.iter().fold(Barrier::empty(), |f, w| f | w.2);
    if flags.contains(Barrier::WORK_GROUP) {
        shared.epochs[0] += 1;
    }
    if flags.contains(Barrier::STORAGE) {
        shared.epochs[1] += 1;
    }
    for (i, ..) in waiting {
        invocations[i].state = State::Ready;
    }
    true
}

/// Resolves one subgroup operation in every subgroup where some invocation
/// waits at one; false when none does.
fn subgroups(
    shared: &mut Shared,
    invocations: &mut [Invocation],
    workgroup: [u32; 3],
) -> Result<bool, Fault> {
    let size = shared.subgroup_size as usize;
    let mut any = false;
    // Invocations are in local-index order, so a chunk is a subgroup.
    for members in invocations.chunks_mut(size) {
        let pending = |inv: &Invocation| match &inv.state {
            State::AtSubgroup(p) => Some(p.span),
            _ => None,
        };
        let Some(span) = members.iter().find_map(pending) else {
            continue;
        };
        any = true;
        let active: Vec<usize> = (0..members.len())
            .filter(|&i| pending(&members[i]) == Some(span))
            .collect();
        if active.len() < members.len() && !shared.known(Kind::DivergentSubgroup, span) {
            let ids: Vec<[u32; 3]> = active.iter().map(|&i| members[i].ids.local).collect();
            let message = format!(
                "this subgroup operation is reached by {} of the {} invocations of a subgroup \
                 of workgroup {} ({}); the others are elsewhere. WGSL requires every \
                 invocation of a subgroup to reach a subgroup operation together: move it out \
                 of the `if` or loop that only some invocations enter, and let the others \
                 contribute a neutral value instead",
                active.len(),
                members.len(),
                triple(workgroup),
                list_ids(&ids),
            );
            shared.report(Kind::DivergentSubgroup, span, message);
        }
        let waiting: Vec<(u32, Pending)> = active
            .iter()
            .filter_map(|&i| match &members[i].state {
                State::AtSubgroup(p) => Some((
                    members[i].ids.local_index % shared.subgroup_size,
                    (**p).clone(),
                )),
                _ => None,
            })
            .collect();
        let results = resolve(&waiting).map_err(|e| unsupported(e, span))?;
        for (&i, ((_, p), v)) in active.iter().zip(waiting.iter().zip(results)) {
            members[i].resume_with(p.result, v);
        }
    }
    Ok(any)
}

/// The result of one subgroup operation for each of its active invocations
/// (given as (lane, operands), in lane order).
fn resolve(waiting: &[(u32, Pending)]) -> Result<Vec<Value>, OpError> {
    let Some((_, first)) = waiting.first() else {
        return Ok(vec![]);
    };
    let all = || waiting.iter().map(|(_, p)| &p.value);
    Ok(match first.op {
        SubgroupOp::Barrier => vec![Value::Scalar(Scalar::Bool(true)); waiting.len()],
        SubgroupOp::Ballot => {
            let mut mask = [0u32; 4];
            for (lane, p) in waiting {
                if p.value == Value::Scalar(Scalar::Bool(true)) && *lane < 128 {
                    mask[*lane as usize / 32] |= 1 << (lane % 32);
                }
            }
            let ballot = Value::Composite(mask.map(|m| Value::Scalar(Scalar::U32(m))).to_vec());
            vec![ballot; waiting.len()]
        }
        SubgroupOp::Collective(op, collective) => {
            use naga::CollectiveOperation as C;
            match collective {
                C::Reduce => {
                    let mut total = first.value.clone();
                    for v in all().skip(1) {
                        total = combine(op, &total, v)?;
                    }
                    vec![total; waiting.len()]
                }
                C::InclusiveScan => {
                    let mut out: Vec<Value> = Vec::with_capacity(waiting.len());
                    for v in all() {
                        let next = match out.last() {
                            Some(before) => combine(op, before, v)?,
                            None => v.clone(),
                        };
                        out.push(next);
                    }
                    out
                }
                C::ExclusiveScan => {
                    let mut running = identity(op, &first.value)?;
                    let mut out = Vec::with_capacity(waiting.len());
                    for v in all() {
                        out.push(running.clone());
                        running = combine(op, &running, v)?;
                    }
                    out
                }
            }
        }
        SubgroupOp::Gather(_) => {
            let lowest = waiting[0].0;
            waiting
                .iter()
                .map(|(_, p)| {
                    let SubgroupOp::Gather(from) = p.op else {
                        return p.value.clone();
                    };
                    let from = from.unwrap_or(lowest);
                    waiting
                        .iter()
                        .find(|(lane, _)| *lane == from)
                        .map(|(_, q)| q.value.clone())
                        .unwrap_or_else(|| p.value.clone())
                })
                .collect()
        }
    })
}

/// Two arguments of a subgroup reduction or scan, combined.
fn combine(op: naga::SubgroupOperation, a: &Value, b: &Value) -> Result<Value, OpError> {
    use naga::BinaryOperator as B;
    use naga::SubgroupOperation as S;
    match op {
        S::All => value::binary(B::LogicalAnd, a, b),
        S::Any => value::binary(B::LogicalOr, a, b),
        S::Add => value::binary(B::Add, a, b),
        S::Mul => value::binary(B::Multiply, a, b),
        S::Min => value::math(naga::MathFunction::Min, &[a.clone(), b.clone()]),
        S::Max => value::math(naga::MathFunction::Max, &[a.clone(), b.clone()]),
        S::And => value::binary(B::And, a, b),
        S::Or => value::binary(B::InclusiveOr, a, b),
        S::Xor => value::binary(B::ExclusiveOr, a, b),
    }
}

/// What an exclusive scan gives its first lane: 0 for a sum, 1 for a product
/// (WGSL has exclusive scans of these two only).
fn identity(op: naga::SubgroupOperation, like: &Value) -> Result<Value, OpError> {
    let one = match op {
        naga::SubgroupOperation::Add => false,
        naga::SubgroupOperation::Mul => true,
        other => return Err(OpError::ScanOperator(other)),
    };
    like.map(&|s| {
        Ok(match (s, one) {
            (Scalar::F32(_), o) => Scalar::F32(if o { 1.0 } else { 0.0 }),
            (Scalar::I32(_), o) => Scalar::I32(i32::from(o)),
            (Scalar::U32(_), o) => Scalar::U32(u32::from(o)),
            (Scalar::Bool(_), _) => return Err(OpError::ScanOfBools),
        })
    })
}

/// "local ids (0, 0, 0), (1, 0, 0), … 6 more".
fn list_ids(ids: &[[u32; 3]]) -> String {
    let mut shown: Vec<String> = ids.iter().take(4).map(|&v| triple(v)).collect();
    if ids.len() > 4 {
        shown.push(format!("… {} more", ids.len() - 4));
    }
    format!("local ids {}", shown.join(", "))
}

/// A time-out `fault` of invocation `running` with the rest of its
/// workgroup's places: who still ran the line, and who waited where (at a
/// barrier or a subgroup operation), so the report says who waits for whom.
fn who_waited(
    fault: Fault,
    shared: &Shared,
    invocations: &[Invocation],
    running: usize,
    grid: [u32; 3],
) -> Fault {
    let Fault::TimedOut { span, .. } = fault else {
        return fault;
    };
    let name = |i: usize| shared.who(invocations[i].ids.invocation, grid);
    // line -> (invocations waiting there, the first of them)
    let mut waiting: BTreeMap<usize, (usize, String)> = BTreeMap::new();
    for (i, inv) in invocations.iter().enumerate() {
        let at = match &inv.state {
            State::AtBarrier { span, .. } => *span,
            State::AtSubgroup(pending) => pending.span,
            State::Ready | State::Done => continue,
        };
        waiting
            .entry(shared.lines.line(at))
            .or_insert_with(|| (0, name(i)))
            .0 += 1;
    }
    let mut message = format!("{} still ran this line", name(running));
    let others: Vec<String> = waiting
        .iter()
        .map(|(line, (n, first))| match n {
            1 => format!("{first} waited at line {line}"),
            n => format!("{n} invocations ({first} among them) waited at line {line}"),
        })
        .collect();
    if !others.is_empty() {
        message.push_str(&format!(", while {}", others.join("; ")));
    }
    Fault::TimedOut { span, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shuffles_are_seeded_permutations() {
        let mut a: Vec<u32> = (0..32).collect();
        let mut b = a.clone();
        Rng::new(7).shuffle(&mut a);
        Rng::new(7).shuffle(&mut b);
        assert_eq!(a, b, "same seed, same order");
        let mut c: Vec<u32> = (0..32).collect();
        Rng::new(8).shuffle(&mut c);
        assert_ne!(a, c, "another seed, another order");
        a.sort();
        assert_eq!(a, (0..32).collect::<Vec<_>>());
    }

    /// Small grids are shuffled, large ones strided: either way each
    /// workgroup runs exactly once.
    #[test]
    fn every_workgroup_runs_once() {
        for count in [
            1,
            7,
            SHUFFLED_WORKGROUPS,
            SHUFFLED_WORKGROUPS + 1,
            3 * 5 * 7 * 1024,
        ] {
            let mut seen: Vec<u32> = workgroup_order(count, &mut Rng::new(3)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..count).collect::<Vec<_>>(), "{count}");
        }
    }

    #[test]
    fn split_is_x_fastest() {
        assert_eq!(split(0, [3, 3, 1]), [0, 0, 0]);
        assert_eq!(split(4, [3, 3, 1]), [1, 1, 0]);
        assert_eq!(split(7, [2, 2, 2]), [1, 1, 1]);
    }
}
