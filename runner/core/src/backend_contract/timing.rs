//! Kernel timings: samples from a device timer (or the wall clock), summarised.
//!
//! The median is what pages show; min and max give the spread. The clock is
//! always named, because a wall-clock figure includes submission overhead that
//! a device timer does not.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Clock {
    /// GPU timestamp queries (wgpu) or CUDA events.
    Device,
    /// Host wall time around submit-and-wait.
    Wall,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Timing {
    pub clock: Clock,
    pub samples: usize,
    pub median_ms: f64,
    pub min_ms: f64,
    pub max_ms: f64,
    /// Host wall time per run (submit to finish), beside a device timer's figure.
    #[serde(default)]
    pub wall_median_ms: Option<f64>,
}

impl Timing {
    /// Summarises samples in milliseconds; `None` when there are none.
    pub fn from_samples(clock: Clock, samples_ms: &[f64]) -> Option<Timing> {
        let mut sorted: Vec<f64> = samples_ms
            .iter()
            .copied()
            .filter(|v| v.is_finite())
            .collect();
        if sorted.is_empty() {
            return None;
        }
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 {
            sorted[n / 2]
        } else {
            (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
        };
        Some(Timing {
            clock,
            samples: n,
            median_ms: median,
            min_ms: sorted[0],
            max_ms: sorted[n - 1],
            wall_median_ms: None,
        })
    }

    /// The same summary, with the host's wall-clock samples beside it.
    pub fn with_wall(mut self, wall_ms: &[f64]) -> Timing {
        self.wall_median_ms = Timing::from_samples(Clock::Wall, wall_ms).map(|w| w.median_ms);
        self
    }

    /// (max − min) / median, in percent: how much the samples disagree.
    pub fn spread_pct(&self) -> f64 {
        if self.median_ms > 0.0 {
            100.0 * (self.max_ms - self.min_ms) / self.median_ms
        } else {
            0.0
        }
    }

    /// "0.0123 ms (median of 10, 0.0110–0.0150, device timer)".
    pub fn describe(&self) -> String {
        let clock = match self.clock {
            Clock::Device => "device timer",
            Clock::Wall => "wall clock",
        };
        format!(
            "{} (median of {}, {}–{}, {clock})",
            format_ms(self.median_ms),
            self.samples,
            format_ms(self.min_ms),
            format_ms(self.max_ms)
        )
    }
}

/// Milliseconds with three significant digits, switching to µs below 0.1 ms.
pub fn format_ms(ms: f64) -> String {
    if ms < 0.1 {
        format!("{:.3} µs", ms * 1000.0).replace(".000 µs", " µs")
    } else {
        format!("{ms:.3} ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_table() {
        let cases: &[(&[f64], Option<(f64, f64, f64)>)] = &[
            (&[], None),
            (&[3.0], Some((3.0, 3.0, 3.0))),
            (&[4.0, 1.0, 2.0], Some((2.0, 1.0, 4.0))),
            (&[4.0, 1.0, 2.0, 3.0], Some((2.5, 1.0, 4.0))),
            (&[f64::NAN, 5.0], Some((5.0, 5.0, 5.0))),
        ];
        for (samples, want) in cases {
            let got = Timing::from_samples(Clock::Device, samples)
                .map(|t| (t.median_ms, t.min_ms, t.max_ms));
            assert_eq!(got, *want, "{samples:?}");
        }
    }

    #[test]
    fn formats_table() {
        assert_eq!(format_ms(0.0123), "12.300 µs");
        assert_eq!(format_ms(2.5), "2.500 ms");
        let t = Timing::from_samples(Clock::Wall, &[1.0, 2.0, 3.0]).unwrap();
        assert_eq!(
            t.describe(),
            "2.000 ms (median of 3, 1.000 ms–3.000 ms, wall clock)"
        );
    }
}
