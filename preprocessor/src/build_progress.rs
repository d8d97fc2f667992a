//! What a long build says while it works: a cold `mdbook serve` runs every
//! puzzle before the first page appears, which takes minutes on a CPU, and
//! silence for that long reads as a hang. A warm build (everything cached)
//! finishes before the first line is due and prints nothing.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Nothing is printed before this, nor more often than this.
const QUIET: Duration = Duration::from_secs(2);

pub struct Progress {
    total: usize,
    done: AtomicUsize,
    start: Instant,
    last: Mutex<Option<Instant>>,
}

impl Progress {
    /// Counting `total` kernel sections (a puzzle in one language).
    pub fn new(total: usize) -> Progress {
        Progress {
            total,
            done: AtomicUsize::new(0),
            start: Instant::now(),
            last: Mutex::new(None),
        }
    }

    /// One more section checked: "puzzles 12/55 (p11_conv_2d, CUDA C)", at
    /// most every couple of seconds.
    pub fn checked(&self, what: &str) {
        let done = self.done.fetch_add(1, Ordering::Relaxed) + 1;
        if let Some(line) = self.line_at(Instant::now(), done, what) {
            eprintln!("{line}");
        }
    }

    fn line_at(&self, now: Instant, done: usize, what: &str) -> Option<String> {
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let due = now.duration_since(last.unwrap_or(self.start)) >= QUIET;
        if !due && done != self.total {
            return None;
        }
        if now.duration_since(self.start) < QUIET {
            return None;
        }
        *last = Some(now);
        Some(format!(
            "mdbook-puzzles: puzzles {done}/{} checked ({what}), {:.0} s",
            self.total,
            now.duration_since(self.start).as_secs_f64()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quiet_when_fast_then_every_few_seconds() {
        let p = Progress::new(3);
        let t0 = p.start;
        let at = |s: f64| t0 + Duration::from_secs_f64(s);
        // (seconds since start, sections done, a line printed?)
        let cases = [
            (0.5, 1, false),
            (2.5, 2, true),
            (3.0, 2, false),
            (3.5, 3, true), // the last one is always said, once past the quiet start
        ];
        for (s, done, printed) in cases {
            let line = p.line_at(at(s), done, "p01_map, WGSL");
            assert_eq!(line.is_some(), printed, "{s} s: {line:?}");
            if let Some(line) = line {
                assert!(line.contains(&format!("puzzles {done}/3")), "{line}");
            }
        }
        // A warm build that finishes at once prints nothing at all.
        let warm = Progress::new(1);
        assert_eq!(warm.line_at(warm.start, 1, "p01_map, WGSL"), None);
    }
}
