//! `runner bench`: a puzzle's solution timed at any size, with the roofline
//! figures that make the time mean something.

use crate::args::{BackendArg, timing_backend};
use anyhow::{Context, Result};
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::spec::expr::{self, Constants};
use runner::perf::bench::{self, Checked, Options};
use runner::perf::record::{self, store};
use runner::run::runner::Runner;
use std::process::ExitCode;
use std::time::Duration;

/// Time a puzzle's solution at any size, with roofline figures.
///
/// Warm-up runs first, then device-timed samples; buffers smaller than the
/// last-level cache are rotated so the cache does not flatter the time.
#[derive(Args)]
pub struct BenchArgs {
    /// Puzzle id, e.g. p10_dot (see `runner list`).
    puzzle: String,
    #[arg(long, value_enum, default_value = "wgpu")]
    backend: BackendArg,
    /// Change a constant of the spec, e.g. --set SIZE=16777216 (repeatable).
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// Timed samples.
    #[arg(long, default_value_t = 50)]
    samples: usize,
    /// Untimed runs before the samples.
    #[arg(long, default_value_t = 5)]
    warmup: usize,
    /// Seconds before a run is reported as hung.
    #[arg(long, default_value_t = 60)]
    timeout: u64,
    /// Buffer sets to rotate through (default: enough to spill the last-level cache).
    #[arg(long)]
    buffer_sets: Option<usize>,
    /// Print JSON.
    #[arg(long)]
    json: bool,
}

pub fn execute(book: &Book, args: BenchArgs) -> Result<ExitCode> {
    let puzzle = book.find(&args.puzzle)?;
    let kind = timing_backend(args.backend, "bench")?;
    let mut overrides = Constants::new();
    for pair in &args.set {
        let (name, value) = pair
            .split_once('=')
            .with_context(|| format!("--set takes NAME=VALUE, got `{pair}`"))?;
        let value = expr::eval(value, &puzzle.spec.raw.constants)
            .map_err(|e| anyhow::anyhow!("--set {pair}: {e}"))?;
        overrides.insert(name.to_string(), value);
    }
    let runner = Runner::new(Default::default());
    let backend = runner.backend(kind).map_err(|e| anyhow::anyhow!("{e}"))?;
    let (recordings, _) = store::load_all(&book.root.join(record::RESULTS_DIR));
    let ceilings = store::find(&recordings, backend.device()).and_then(|r| r.ceilings.clone());
    let options = Options {
        overrides,
        samples: args.samples,
        warmup: args.warmup,
        timeout: Duration::from_secs(args.timeout),
        buffer_sets: args.buffer_sets,
    };
    let report = bench::bench(puzzle, backend, &options, ceilings.as_ref())?
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(match report.checked {
        Checked::Failed(_) => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    })
}
