//! The dispatch: workgroups one after another, and inside a workgroup the
//! invocations in a seeded random order between barriers. Each invocation
//! runs until it reaches a barrier or its end; when every invocation has
//! stopped, the barrier is checked (all reached the same one, or none) and
//! they all go on. The order only shapes the outputs of a racy kernel; the
//! checks do not depend on it.

use super::exec::{Fault, Ids, Invocation, Program, Shared, State, triple};
use super::hazard::Kind;
use super::memory::Space;
use crate::Launch;
use naga::{Barrier, Span};

/// SplitMix64: a small seeded generator, so a schedule can be replayed.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Fisher–Yates.
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, j);
        }
    }
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
    // A new dispatch is ordered after everything the last one did.
    for region in shared.globals.iter_mut().flatten() {
        region
            .shadow
            .iter_mut()
            .for_each(|s| *s = Default::default());
    }
    let per_group = block.iter().product::<u32>();
    let mut order: Vec<u32> = (0..grid.iter().product::<u32>()).collect();
    rng.shuffle(&mut order);
    for w in order {
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
                invocations[i].run(prog, shared)?;
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

/// "local ids (0, 0, 0), (1, 0, 0), … 6 more".
fn list_ids(ids: &[[u32; 3]]) -> String {
    let mut shown: Vec<String> = ids.iter().take(4).map(|&v| triple(v)).collect();
    if ids.len() > 4 {
        shown.push(format!("… {} more", ids.len() - 4));
    }
    format!("local ids {}", shown.join(", "))
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

    #[test]
    fn split_is_x_fastest() {
        assert_eq!(split(0, [3, 3, 1]), [0, 0, 0]);
        assert_eq!(split(4, [3, 3, 1]), [1, 1, 0]);
        assert_eq!(split(7, [2, 2, 2]), [1, 1, 1]);
    }
}
