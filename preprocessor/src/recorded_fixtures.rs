//! What the tests of the blocks that show recorded benchmarks (```bus,
//! ```overlap) build their made-up hosts from.

use puzzle_core::backend_contract::backend::{BackendKind, DeviceInfo};
use puzzle_core::backend_contract::timing::{Clock, Timing};
use puzzle_core::spec::expr::Constants;
use runner::perf::record::{BenchEntry, Recording};

/// The day every made-up recording was taken.
pub const DAY: &str = "2026-11-27";

pub fn at(pairs: &[(&str, i64)]) -> Constants {
    pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

/// A CUDA GPU (or host of several) called `name`.
pub fn device(name: &str) -> DeviceInfo {
    DeviceInfo {
        backend: BackendKind::Cuda,
        name: name.into(),
        kind: "GPU".into(),
        api: "CUDA 13.0".into(),
        driver: "test".into(),
    }
}

/// 20 device-timed samples around `median_ms`, 2 % apart.
pub fn timing(median_ms: f64) -> Timing {
    Timing {
        clock: Clock::Device,
        samples: 20,
        median_ms,
        min_ms: median_ms * 0.99,
        max_ms: median_ms * 1.01,
        wall_median_ms: None,
    }
}

/// A recording of these benchmarks alone, on `name`, on [`DAY`].
pub fn recording(name: &str, benches: Vec<BenchEntry>) -> Recording {
    Recording {
        awaiting: vec![],
        device: device(name),
        date: DAY.into(),
        runner_version: "0.1.0".into(),
        ceilings: None,
        entries: vec![],
        benches,
    }
}
