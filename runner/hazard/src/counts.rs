//! Counts of global-memory traffic: how many loads and stores of global
//! memory (storage buffers, in WGSL) each thread made over a run.
//!
//! Each checker counts in its own unit (one PTX instruction, one WGSL
//! access of a whole value) and names places in its own terms (a `.loc`
//! line, a span of naga's IR); the tally is the same. Puzzles bound the
//! counts per thread ("one global read and one global write per thread"),
//! so the report keeps the largest count with the thread that made it, the
//! totals (for the mean) and, for every n up to the largest count, the first
//! access that was some thread's n-th: a caller with a bound of n looks up
//! entry n + 1 and has the first access too many, with its place. One run
//! serves any bound.

/// An access, by the thread that made it (`T`) and where in the kernel (`P`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Site<T, P> {
    pub thread: T,
    pub at: P,
}

/// One kind of access (reads, or writes) over a whole run.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Tally<T, P> {
    /// Accesses by all threads together.
    pub total: u64,
    /// The largest count of one thread, and the first thread to finish with it.
    pub max: u32,
    pub max_thread: T,
    /// `nth[k]`: the first access, in the order the checker ran, that was
    /// some thread's (k + 1)-th. As long as `max`, up to `SITES_KEPT`.
    pub nth: Vec<Site<T, P>>,
}

/// Global-memory accesses over a whole run (every launch).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct AccessReport<T, P> {
    /// Threads (invocations) that finished.
    pub threads: u64,
    pub reads: Tally<T, P>,
    pub writes: Tally<T, P>,
}

impl<T, P> AccessReport<T, P> {
    pub fn mean(&self, tally: &Tally<T, P>) -> f64 {
        tally.total as f64 / self.threads.max(1) as f64
    }
}

/// How many `nth` sites a tally keeps: far more than any bound a puzzle
/// sets, and few enough that an endless loop of stores cannot fill memory.
pub const SITES_KEPT: usize = 1024;

/// The tally while a run goes on.
#[derive(Debug, Default)]
pub struct Counter<T, P> {
    report: AccessReport<T, P>,
}

impl<T: Copy + Default, P: Copy + Default> Counter<T, P> {
    /// An access was made at `at`; `count` is the thread's count of its
    /// kind, this one included.
    pub fn access(&mut self, write: bool, count: u32, thread: T, at: P) {
        let nth = if write {
            &mut self.report.writes.nth
        } else {
            &mut self.report.reads.nth
        };
        // Counts grow by one, so the first thread to reach a new count
        // finds the list exactly one short.
        if count as usize > nth.len() && nth.len() < SITES_KEPT {
            nth.push(Site { thread, at });
        }
    }

    /// A thread finished with these counts.
    pub fn finish(&mut self, thread: T, reads: u32, writes: u32) {
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

    pub fn report(&self) -> AccessReport<T, P>
    where
        T: Clone,
        P: Clone,
    {
        self.report.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (threads' (reads, writes), max reads and its thread, max writes and its thread, mean reads).
    #[test]
    fn tally_table() {
        type Case = (&'static [(u32, u32)], (u32, u32), (u32, u32), f64);
        let cases: &[Case] = &[
            (&[(1, 1), (1, 1)], (1, 0), (1, 0), 1.0),
            (&[(1, 0), (3, 1), (3, 2)], (3, 1), (2, 2), 7.0 / 3.0),
            (&[(0, 0)], (0, 0), (0, 0), 0.0),
            (&[], (0, 0), (0, 0), 0.0),
        ];
        for (i, (threads, reads, writes, mean)) in cases.iter().enumerate() {
            let mut c: Counter<u32, usize> = Counter::default();
            for (x, &(r, w)) in threads.iter().enumerate() {
                c.finish(x as u32, r, w);
            }
            let got = c.report();
            assert_eq!((got.reads.max, got.reads.max_thread), *reads, "case {i}");
            assert_eq!((got.writes.max, got.writes.max_thread), *writes, "case {i}");
            assert!((got.mean(&got.reads) - mean).abs() < 1e-12, "case {i}");
        }
    }

    /// The n-th entry is the first access that was anyone's n-th, whatever
    /// came after; past [`SITES_KEPT`] nothing more is kept.
    #[test]
    fn first_nth_access_is_kept() {
        let mut c: Counter<u32, usize> = Counter::default();
        // (write, count, thread, place)
        let accesses = [
            (false, 1, 0, 10),
            (false, 1, 1, 11),
            (false, 2, 1, 12),
            (false, 2, 0, 13),
            (false, 3, 0, 14),
            (true, 1, 5, 20),
        ];
        for (write, count, thread, at) in accesses {
            c.access(write, count, thread, at);
        }
        let r = c.report();
        let reads: Vec<(u32, usize)> = r.reads.nth.iter().map(|s| (s.thread, s.at)).collect();
        assert_eq!(reads, [(0, 10), (1, 12), (0, 14)]);
        assert_eq!(r.writes.nth.len(), 1);
        for count in 2..=SITES_KEPT as u32 + 10 {
            c.access(true, count, 9, 30);
        }
        assert_eq!(c.report().writes.nth.len(), SITES_KEPT);
    }
}
