//! Counts of global-memory traffic: how many loads and stores of global
//! memory each thread made. The unit is one instruction: `ld.global.f32`
//! and `ld.global.v4.f32` count once each, as `wgsl-sim` counts a `vec4`
//! load once; an atomic counts once as a read and once as a write. The
//! report keeps, as `wgsl-sim`'s does, the largest count and the first
//! access that was some thread's n-th, so a caller with a bound of n can
//! name the first access too many.

/// A thread, by its place in the grid.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Thread {
    /// `blockIdx * blockDim + threadIdx`, per axis.
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub block: [u32; 3],
    /// Which launch (0-based) of the run.
    pub launch: usize,
    /// The GPU it ran on, in a run of several ranks (`None` in a run of one).
    pub rank: Option<u32>,
}

/// An access, by who made it and at which source line (0: unknown).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Site {
    pub thread: Thread,
    pub line: usize,
}

/// One kind of access (reads, or writes) over a whole run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tally {
    pub total: u64,
    pub max: u32,
    pub max_thread: Thread,
    /// `nth[k]`: the first access that was some thread's (k + 1)-th.
    pub nth: Vec<Site>,
}

/// Global-memory accesses over a whole run (every launch).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AccessReport {
    pub threads: u64,
    pub reads: Tally,
    pub writes: Tally,
}

impl AccessReport {
    pub fn mean(&self, tally: &Tally) -> f64 {
        tally.total as f64 / self.threads.max(1) as f64
    }
}

/// How many `nth` sites a tally keeps (a loop storing forever cannot fill memory).
pub const SITES_KEPT: usize = 1024;

/// The tally while a run goes on.
#[derive(Debug, Default)]
pub struct Counter {
    report: AccessReport,
}

impl Counter {
    /// An access was made; `count` is the thread's count of its kind, this one included.
    pub fn access(&mut self, write: bool, count: u32, thread: Thread, line: usize) {
        let nth = if write {
            &mut self.report.writes.nth
        } else {
            &mut self.report.reads.nth
        };
        if count as usize > nth.len() && nth.len() < SITES_KEPT {
            nth.push(Site { thread, line });
        }
    }

    /// A thread finished with these counts.
    pub fn finish(&mut self, thread: Thread, reads: u32, writes: u32) {
        let r = &mut self.report;
        r.threads += 1;
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

    /// (threads' (reads, writes), max reads and its thread, max writes and its thread)
    #[test]
    fn tally_table() {
        type Case = (&'static [(u32, u32)], (u32, u32), (u32, u32));
        let cases: &[Case] = &[
            (&[(1, 1), (1, 1)], (1, 0), (1, 0)),
            (&[(1, 0), (3, 1), (3, 2)], (3, 1), (2, 2)),
            (&[], (0, 0), (0, 0)),
        ];
        for (i, (threads, reads, writes)) in cases.iter().enumerate() {
            let mut c = Counter::default();
            for (x, &(r, w)) in threads.iter().enumerate() {
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
        }
    }
}
