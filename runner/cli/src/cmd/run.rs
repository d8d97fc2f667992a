//! `runner run`: any kernel (the book's solution or skeleton, or a file of
//! your own) checked against a puzzle's spec, at the teaching size and, with
//! `--stress`, at every stress size.

use crate::args::{BackendArg, file_lang, overrides, read_kernel_file, sanitizing};
use anyhow::{Result, bail};
use clap::Args;
use puzzle_core::assess::cases::{self, Case, Until};
use puzzle_core::assess::execute::Settings;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use runner::run::Runner;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Run a puzzle's kernel and compare its output with the expected values.
///
/// Exit status: 0 passed, 1 the kernel failed (wrong output, compile error,
/// or a hang), 2 it could not be run here (backend missing, launch
/// impossible, compiled but not run).
#[derive(Args)]
pub struct RunArgs {
    /// Puzzle id, e.g. p01_map (see `runner list`).
    puzzle: String,
    /// Default: from --file's extension (.wgsl: wgpu, or sim where no GPU
    /// adapter exists; .cu: cuda, or sim where no NVIDIA GPU exists), else
    /// as for .wgsl. `sim` is the checker of the file's language.
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
    /// Run the skeleton (the code to complete).
    #[arg(long, conflicts_with_all = ["solution", "file"])]
    skeleton: bool,
    /// Run the reference solution (the default).
    #[arg(long, conflicts_with = "file")]
    solution: bool,
    /// Run your own kernel file (.wgsl or .cu) against the puzzle's spec.
    #[arg(long)]
    file: Option<PathBuf>,
    /// Timed repetitions after the checked run.
    #[arg(long, default_value_t = 10)]
    samples: usize,
    /// Seconds before a kernel that has not finished is reported as hung.
    #[arg(long, default_value_t = 10)]
    timeout: u64,
    /// Print the reports as one JSON array.
    #[arg(long)]
    json: bool,
    /// Also run the spec's stress cases: other sizes, random inputs,
    /// expected values from the CPU reference.
    #[arg(long)]
    stress: bool,
    /// Run at other sizes instead of the teaching size, e.g. --set SIZE=4096
    /// (repeatable): random inputs, expected values from the CPU reference.
    #[arg(long = "set", value_name = "NAME=VALUE")]
    set: Vec<String>,
    /// CUDA only: run the kernel again under NVIDIA's compute-sanitizer
    /// (memcheck, racecheck, synccheck, initcheck) and report what it finds
    /// at your lines; needs compute-sanitizer from the CUDA toolkit.
    #[arg(long)]
    sanitize: bool,
}

pub fn execute(book: &Book, args: RunArgs) -> Result<ExitCode> {
    let puzzle = book.find_as_meant(&args.puzzle)?;
    let file_lang = args.file.as_deref().map(file_lang).transpose()?;
    let set = overrides(puzzle, &args.set)?;
    let mut runner = Runner::new(Settings {
        timing_samples: args.samples,
        timeout: Duration::from_secs(args.timeout),
        ..Settings::default()
    });
    // The language to run: the file's, or the puzzle's only one (Part VI
    // and VII are CUDA C alone), or else WGSL.
    let only_lang = match puzzle.kernels.keys().collect::<Vec<_>>()[..] {
        [&only] => Some(only),
        _ => None,
    };
    let lang_wanted = file_lang.or(only_lang);
    // `sim` with a .cu file (or a CUDA-only puzzle) is CUDA's checker.
    let mut backend = args.backend.map(|b| b.kind(lang_wanted));
    if args.sanitize {
        let sanitizer;
        (_, backend, sanitizer) = sanitizing((file_lang, backend))?;
        runner = runner.with_sanitizer(sanitizer);
    }
    let kind = match backend {
        Some(b) => b,
        // WGSL falls back to the CPU checker where no GPU adapter exists.
        None => runner.default_backend(lang_wanted.unwrap_or(Lang::Wgsl)),
    };
    let lang = kind.lang();
    if let Some(file_lang) = file_lang.filter(|&l| l != lang) {
        bail!(
            "the {kind} backend runs {} kernels, not {}",
            lang.label(),
            file_lang.label()
        );
    }
    let (variant, source) = match &args.file {
        Some(path) => (Variant::File, read_kernel_file(book, path, puzzle, lang)?),
        None => {
            let variant = if args.skeleton {
                Variant::Skeleton
            } else {
                Variant::Solution
            };
            (variant, puzzle.require_kernel(lang)?.variant(variant))
        }
    };
    if args.stress && puzzle.spec.stress_cases().is_empty() {
        eprintln!(
            "note: `{}` declares no stress cases (its kernel is size-specific)",
            puzzle.id()
        );
    }
    let mut cases = cases::cases(&puzzle.spec, args.stress);
    if !set.is_empty() {
        // The sizes asked for replace the teaching size: random inputs, as a stress run's.
        cases[0] = Case::at(set);
    }
    let ran = runner.run_cases(kind, puzzle, variant, &source, cases, Until::All)?;
    if args.json {
        let reports: Vec<&RunReport> = ran.iter().map(|(_, report)| report).collect();
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        for (case, report) in &ran {
            if case.overrides.is_some() {
                let what = if case.line.is_some() {
                    "stress run"
                } else {
                    "run"
                };
                println!(
                    "\n-- {what}: {} (random inputs, CPU reference)",
                    case.label()
                );
            }
            print!("{}", report.to_text());
        }
    }
    // The first run that did not pass decides.
    let code = ran
        .iter()
        .map(|(_, report)| exit_code(report))
        .find(|&code| code != 0)
        .unwrap_or(0);
    Ok(ExitCode::from(code))
}

/// 0 passed; 1 the kernel is at fault (wrong, does not compile, hangs); 2 not judged here.
fn exit_code(report: &RunReport) -> u8 {
    match (report.status, &report.error) {
        (Status::Pass, _) => 0,
        (Status::Fail | Status::CompileError, _) => 1,
        (Status::Error, Some(e)) if e.hang_limit().is_some() => 1,
        (Status::Compiled | Status::Unavailable | Status::Error, _) => 2,
    }
}
