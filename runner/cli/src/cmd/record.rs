//! `runner record`: every puzzle run on this machine's GPUs, written to
//! results/<device>.json (committed; books built without that GPU show
//! them, labelled as recorded), then the benchmarks, each alone in a process.

use crate::args::{BackendArg, timing_backend};
use anyhow::{Result, bail};
use clap::Args;
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use runner::backend::{RANKS_ON_ONE_GPU, ranks_on_one_gpu_from_env};
use runner::perf::record::{self, Progress};
use runner::run::Runner;
use std::path::PathBuf;
use std::process::ExitCode;

/// Run every puzzle on this machine's GPUs and write results/<device>.json
/// (committed; books built without that GPU show them, labelled as recorded).
#[derive(Args)]
pub struct RecordArgs {
    /// Where to write (default: the book's results/ folder).
    #[arg(long)]
    out: Option<PathBuf>,
    /// Timed repetitions per solution.
    #[arg(long, default_value_t = 20)]
    samples: usize,
    /// Record only these puzzles (comma-separated), keeping the file's other entries.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Record only these backends (comma-separated: cuda, wgpu).
    #[arg(long, value_delimiter = ',', value_enum)]
    backend: Vec<BackendArg>,
    /// Record the teaching-size runs only, keeping the benchmarks already in
    /// the file (each is shown only while its kernel and spec are unchanged).
    #[arg(long)]
    runs_only: bool,
}

pub fn execute(book: &Book, args: RecordArgs) -> Result<ExitCode> {
    // A recording stands for a machine's GPUs: ranks sharing one GPU would
    // write a file that reads as a host of several.
    if ranks_on_one_gpu_from_env() {
        bail!(
            "{RANKS_ON_ONE_GPU} is set: times taken with every rank on one GPU are not recorded; \
             unset it to record this machine's GPUs"
        );
    }
    let backends = args
        .backend
        .iter()
        .map(|&b| timing_backend(b, "record"))
        .collect::<Result<Vec<BackendKind>>>()?;
    let runner = Runner::new(Settings {
        timing_samples: args.samples,
        ..Settings::default()
    });
    let dir = args
        .out
        .unwrap_or_else(|| book.root.join(record::RESULTS_DIR));
    let mut say = |event: Progress| eprintln!("record: {event}");
    let written = record::record(book, &runner, &dir, &args.only, &backends, &mut say)?;
    if written.is_empty() {
        bail!("no GPU here runs kernels: nothing recorded");
    }
    // Every backend of this process closes before the benchmarks run,
    // each alone on the GPU (see record_benches).
    drop(runner);
    if !args.runs_only {
        record::record_benches(book, &written, &args.only, &mut say)?;
    }
    for path in written {
        println!("wrote {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
