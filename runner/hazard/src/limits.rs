//! What one run of a checker may spend: time, read from a clock the caller
//! supplies (std's where there is one, the page's in a browser, where std
//! has none), and memory, refused up front with a sentence that says how
//! much the run would take.

use std::time::Duration;

/// Time since a fixed origin; only differences are used.
pub type Clock = fn() -> Duration;

/// The operating system's monotonic clock, through std (not in a browser).
pub fn system_clock() -> Duration {
    static ORIGIN: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    ORIGIN.get_or_init(std::time::Instant::now).elapsed()
}

/// What a checker may take for one run unless told otherwise.
pub const MEMORY_BUDGET: u64 = 2 << 30;

/// How long a run may go on unless told otherwise.
pub const TIMEOUT: Duration = Duration::from_secs(10);

/// What a run may spend.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// A run still going after this long is abandoned, as a kernel that never ends.
    pub timeout: Duration,
    /// Where the time is read from.
    pub clock: Clock,
    /// The most memory the checker may take for the kernel's memory and
    /// its records of it, in bytes.
    pub memory: u64,
}

impl Default for Limits {
    fn default() -> Limits {
        Limits {
            timeout: TIMEOUT,
            clock: system_clock,
            memory: MEMORY_BUDGET,
        }
    }
}

impl Limits {
    /// The deadline of a run starting now.
    pub fn start(&self) -> Deadline {
        Deadline {
            clock: self.clock,
            at: (self.clock)().saturating_add(self.timeout),
            steps: 0,
        }
    }

    /// Refuses a run that would take more memory than allowed: `subject`
    /// is what is checked ("this run"), `holding` what the memory holds.
    pub fn afford(&self, needed: u64, subject: &str, holding: &str) -> Result<(), String> {
        if needed <= self.memory {
            return Ok(());
        }
        Err(format!(
            "checking {subject} would take about {} MiB of memory ({holding}), more than the \
             CPU checker's {} MiB; check it at a smaller size",
            needed >> 20,
            self.memory >> 20
        ))
    }
}

/// When a run is abandoned.
#[derive(Debug, Clone, Copy)]
pub struct Deadline {
    clock: Clock,
    at: Duration,
    steps: u64,
}

impl Deadline {
    /// Whether the time is up, reading the clock now.
    pub fn passed(&self) -> bool {
        (self.clock)() > self.at
    }

    /// Counts a step and reads the clock every `2^every_log2` steps (a run
    /// is millions of steps, and a clock read costs more than one), so a
    /// run overshoots its timeout by at most that many steps.
    #[inline]
    pub fn tick(&mut self, every_log2: u32) -> bool {
        self.steps += 1;
        self.steps.is_multiple_of(1 << every_log2) && self.passed()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    static NOW_MS: AtomicU64 = AtomicU64::new(0);

    fn test_clock() -> Duration {
        Duration::from_millis(NOW_MS.load(Ordering::Relaxed))
    }

    /// (the clock when the deadline is read, steps ticked, reads the clock
    /// every 2^k, whether the time is up at the last tick)
    #[test]
    fn deadline_table() {
        let limits = Limits {
            timeout: Duration::from_millis(100),
            clock: test_clock,
            memory: MEMORY_BUDGET,
        };
        let cases = [
            (50, 4, 2, false),
            (150, 4, 2, true),
            // Past the timeout, but the clock is not read on this step.
            (150, 3, 2, false),
            (100, 1, 0, false),
            (101, 1, 0, true),
        ];
        for (i, (now, steps, every_log2, up)) in cases.into_iter().enumerate() {
            NOW_MS.store(0, Ordering::Relaxed);
            let mut deadline = limits.start();
            NOW_MS.store(now, Ordering::Relaxed);
            let mut last = false;
            for _ in 0..steps {
                last = deadline.tick(every_log2);
            }
            assert_eq!(last, up, "case {i}");
            assert_eq!(deadline.passed(), now > 100, "case {i}");
        }
    }

    /// (needed, allowed, the words the refusal holds; none for a run that fits)
    #[test]
    fn afford_table() {
        let cases = [
            (1 << 20, 2 << 20, None),
            (2 << 20, 2 << 20, None),
            (
                3 << 20,
                2 << 20,
                Some("about 3 MiB of memory (its buffers), more than the CPU checker's 2 MiB"),
            ),
        ];
        for (i, (needed, memory, words)) in cases.into_iter().enumerate() {
            let limits = Limits {
                memory,
                ..Limits::default()
            };
            let got = limits.afford(needed, "this run", "its buffers");
            match words {
                None => assert!(got.is_ok(), "case {i}"),
                Some(w) => {
                    let message = got.expect_err("refused");
                    assert!(
                        message.starts_with("checking this run would take"),
                        "case {i}"
                    );
                    assert!(message.contains(w), "case {i}: {message}");
                }
            }
        }
    }
}
