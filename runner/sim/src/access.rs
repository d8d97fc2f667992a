//! Counts of global-memory traffic: how many times each invocation read and
//! wrote storage buffers.
//!
//! The unit is one access as the kernel writes it: a load or a store of a
//! whole value through a pointer into a storage buffer, whatever its width
//! (`a[i]`, a `vec4` or a struct each count once). A buffer declared
//! `array<vec4<f32>>` is read four words per access, as a 16-byte load does
//! on a GPU: `a[i]` counts once, and `a[i].x` is a load of its own. Uniforms are not counted:
//! they hold the puzzles' sizes, which a GPU keeps in a cache of constants.
//! An atomic read-modify-write counts once as a read and once as a write,
//! whether or not a compare-exchange stores, because the hardware fetches
//! the word and owns it for the write either way.
//!
//! Puzzles bound the counts per invocation (the seeds' "you only need 1
//! global read and 1 global write per thread"), so the report keeps the
//! largest count with the invocation that made it, the totals (for the
//! mean), and for every n up to the largest count the first access that was
//! some invocation's n-th: a caller with a bound of n looks up entry n + 1
//! and has the first access too many, with its place in the kernel. The
//! interpreter needs no bound for that, so one run serves any bound.

use naga::Span;

/// An invocation, by its place in the dispatch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Thread {
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub workgroup: [u32; 3],
    /// Which launch (0-based) of the run.
    pub launch: usize,
}

/// An access, by who made it and where in the kernel.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Site {
    pub thread: Thread,
    pub span: Span,
}

/// One kind of access (reads, or writes) over a whole run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tally {
    /// Accesses by all invocations together.
    pub total: u64,
    /// The largest count of one invocation, and the first invocation to finish with it.
    pub max: u32,
    pub max_thread: Thread,
    /// `nth[k]`: the first access, in the order the simulation ran, that was
    /// some invocation's (k + 1)-th. As long as `max`.
    pub nth: Vec<Site>,
}

/// Global-memory accesses over a whole run (every launch).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AccessReport {
    pub invocations: u64,
    pub reads: Tally,
    pub writes: Tally,
}

impl AccessReport {
    pub fn mean(&self, tally: &Tally) -> f64 {
        tally.total as f64 / self.invocations.max(1) as f64
    }
}

/// How many `nth` sites a tally keeps: far more than any bound a puzzle
/// sets, and few enough that an endless loop of stores cannot fill memory.
pub const SITES_KEPT: usize = 1024;

/// The tally while a run goes on.
#[derive(Debug, Default)]
pub struct Counter {
    report: AccessReport,
}

impl Counter {
    /// An access was made; `count` is the invocation's count of its kind,
    /// this one included.
    pub fn access(&mut self, write: bool, count: u32, thread: Thread, span: Span) {
        let nth = if write {
            &mut self.report.writes.nth
        } else {
            &mut self.report.reads.nth
        };
        // Counts grow by one, so the first invocation to reach a new count
        // finds the list exactly one short. Bounds are small numbers; past
        // [`SITES_KEPT`] (a loop storing forever) nothing more is kept.
        if count as usize > nth.len() && nth.len() < SITES_KEPT {
            nth.push(Site { thread, span });
        }
    }

    /// An invocation finished with these counts.
    pub fn finish(&mut self, thread: Thread, reads: u32, writes: u32) {
        let r = &mut self.report;
        r.invocations += 1;
        for (count, tally) in [(reads, &mut r.reads), (writes, &mut r.writes)] {
            tally.total += u64::from(count);
            if count > tally.max {
                tally.max = count;
                tally.max_thread = thread;
            }
        }
    }

    pub fn report(&self) -> AccessReport {
        self.report.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn thread(x: u32) -> Thread {
        Thread {
            global: [x, 0, 0],
            ..Thread::default()
        }
    }

    /// (invocations' (reads, writes), max reads and its thread, max writes and its thread, mean reads).
    #[test]
    fn tally_table() {
        type Case = (&'static [(u32, u32)], (u32, u32), (u32, u32), f64);
        let cases: &[Case] = &[
            (&[(1, 1), (1, 1)], (1, 0), (1, 0), 1.0),
            (&[(1, 0), (3, 1), (3, 2)], (3, 1), (2, 2), 7.0 / 3.0),
            (&[(0, 0)], (0, 0), (0, 0), 0.0),
            (&[], (0, 0), (0, 0), 0.0),
        ];
        for (i, (invocations, reads, writes, mean)) in cases.iter().enumerate() {
            let mut c = Counter::default();
            for (x, &(r, w)) in invocations.iter().enumerate() {
                c.finish(thread(x as u32), r, w);
            }
            let got = c.report();
            assert_eq!(
                (got.reads.max, got.reads.max_thread.global[0]),
                *reads,
                "case {i}"
            );
            assert_eq!(
                (got.writes.max, got.writes.max_thread.global[0]),
                *writes,
                "case {i}"
            );
            assert!((got.mean(&got.reads) - mean).abs() < 1e-12, "case {i}");
        }
    }

    /// The n-th entry is the first access that was anyone's n-th, whatever came after.
    #[test]
    fn first_nth_access_is_kept() {
        let mut c = Counter::default();
        let at = |n: u32| Span::new(n, n + 1);
        // (write, count, thread, span)
        let accesses = [
            (false, 1, 0, 10),
            (false, 1, 1, 11),
            (false, 2, 1, 12),
            (false, 2, 0, 13),
            (false, 3, 0, 14),
            (true, 1, 5, 20),
        ];
        for (write, count, x, span) in accesses {
            c.access(write, count, thread(x), at(span));
        }
        let r = c.report();
        let reads: Vec<(u32, u32)> = r
            .reads
            .nth
            .iter()
            .map(|s| {
                (
                    s.thread.global[0],
                    s.span.to_range().map_or(0, |r| r.start as u32),
                )
            })
            .collect();
        assert_eq!(reads, [(0, 10), (1, 12), (0, 14)]);
        assert_eq!(r.writes.nth.len(), 1);
    }
}
