//! `runner bench`: a puzzle's solution, or your own kernel (`--file`),
//! timed at the spec's bench size or any other, with the roofline figures
//! that make the time mean something. With `--file`, the book's solution is
//! timed in the same run, and the pages' targets say where yours stands.

use crate::args::{BackendArg, file_lang, overrides, read_kernel_file, timing_backend};
use anyhow::{Result, anyhow, bail};
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::lang::Lang;
use runner::perf::{self, BenchReport, Checked, Options, Standing, record};
use runner::run::Runner;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Time a puzzle's solution, or your own kernel, with roofline figures.
///
/// The size is the spec's first `bench` case (the one the pages' targets
/// refer to; the teaching size where it has none), changed by any --set.
/// Warm-up runs first, then device-timed samples; buffers smaller than the
/// last-level cache are rotated so the cache does not flatter the time.
/// Exit status: 0 timed (and right, where checked), 1 the output is wrong.
#[derive(Args)]
pub struct BenchArgs {
    /// Puzzle id, e.g. p10_dot (see `runner list`).
    puzzle: String,
    /// Your own kernel (.wgsl or .cu), timed beside the book's solution and
    /// held against the targets the book's pages set for this puzzle.
    #[arg(long)]
    file: Option<PathBuf>,
    /// Default: cuda for a .cu --file, else wgpu.
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
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

/// `runner bench --file --json`: both timings and the verdicts.
#[derive(Serialize)]
struct FileBench<'a> {
    yours: &'a BenchReport,
    solution: &'a BenchReport,
    standing: &'a Standing,
}

pub fn execute(book: &Book, args: BenchArgs) -> Result<ExitCode> {
    let puzzle = book.find_as_meant(&args.puzzle)?;
    let lang = args.file.as_deref().map(file_lang).transpose()?;
    let named = args.backend.unwrap_or(match lang {
        Some(Lang::Cuda) => BackendArg::Cuda,
        _ => BackendArg::Wgpu,
    });
    let kind = timing_backend(named, "bench")?;
    if let Some(lang) = lang.filter(|&l| l != kind.lang()) {
        bail!(
            "the {kind} backend runs {} kernels, not {}",
            kind.lang().label(),
            lang.label()
        );
    }
    // The headline bench size, then what --set changes.
    let mut sizes = puzzle
        .spec
        .bench_cases()
        .into_iter()
        .next()
        .unwrap_or_default();
    sizes.extend(overrides(puzzle, &args.set)?);
    let file = match &args.file {
        Some(path) => Some(read_kernel_file(book, path, puzzle, kind.lang())?),
        None => None,
    };
    let runner = Runner::new(Default::default());
    let backend = runner.backend(kind).map_err(|e| anyhow!("{e}"))?;
    let (recordings, _) = record::load_all(&book.root.join(record::RESULTS_DIR));
    let ceilings = record::find(&recordings, backend.device()).and_then(|r| r.ceilings.clone());
    let options = Options {
        overrides: sizes,
        samples: args.samples,
        warmup: args.warmup,
        timeout: Duration::from_secs(args.timeout),
        buffer_sets: args.buffer_sets,
        file: None,
    };
    let time = |options: &Options| -> Result<BenchReport> {
        perf::bench(puzzle, backend, options, ceilings.as_ref())?.map_err(|e| anyhow!("{e}"))
    };
    let Some(file) = file else {
        let report = time(&options)?;
        if args.json {
            println!("{}", serde_json::to_string_pretty(&report)?);
        } else {
            print!("{}", fitted(&report.to_text()));
        }
        return Ok(exit_code(&report));
    };
    let yours = time(&Options {
        file: Some(file),
        ..options.clone()
    })?;
    let solution = time(&options)?;
    let pages = perf::targets(book, puzzle.id(), kind.lang())?;
    let (baselines, _) = perf::load_baselines(&perf::baselines_dir(&book.root));
    let standing = Standing::new(&yours, &solution, &pages, &baselines);
    if args.json {
        let both = FileBench {
            yours: &yours,
            solution: &solution,
            standing: &standing,
        };
        println!("{}", serde_json::to_string_pretty(&both)?);
    } else {
        let path = args.file.as_deref().map(std::path::Path::display);
        let mut text = path.map_or(String::new(), |path| format!("your kernel, {path}: "));
        text.push_str(&yours.to_text());
        text.push_str(&standing.to_text());
        print!("{}", fitted(&text));
    }
    Ok(exit_code(&yours))
}

/// The report fitted to the terminal's width; piped, each line stays whole.
fn fitted(text: &str) -> String {
    runner::learner::fit_report(text, runner::learner::width())
}

/// 1 where the timed output was checked and wrong.
fn exit_code(report: &BenchReport) -> ExitCode {
    match report.checked {
        Checked::Failed(_) => ExitCode::from(1),
        _ => ExitCode::SUCCESS,
    }
}
