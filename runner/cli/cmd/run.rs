//! `runner run`: any kernel (the book's solution or skeleton, or a file of
//! your own) checked against a puzzle's spec, at the teaching size and, with
//! `--stress`, at every stress size.

use crate::args::{BackendArg, sanitizing};
use anyhow::{Context, Result, bail};
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::check::cases::Until;
use puzzle_core::check::execute::Settings;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::kernel::includes;
use puzzle_core::lang::Lang;
use puzzle_core::source::text::SourceText;
use runner::book::load::BookFiles;
use runner::run::runner::Runner;
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
    /// CUDA only: run the kernel again under NVIDIA's compute-sanitizer
    /// (memcheck, racecheck, synccheck, initcheck) and report what it finds
    /// at your lines; needs compute-sanitizer from the CUDA toolkit.
    #[arg(long)]
    sanitize: bool,
}

pub fn execute(book: &Book, args: RunArgs) -> Result<ExitCode> {
    let puzzle = book.find(&args.puzzle)?;
    let file_lang = match &args.file {
        Some(path) => {
            let ext = path
                .extension()
                .and_then(|e| e.to_str())
                .unwrap_or_default();
            Some(Lang::from_extension(ext).with_context(|| {
                format!(
                    "{}: cannot tell the language; name it .wgsl or .cu",
                    path.display()
                )
            })?)
        }
        None => None,
    };
    let mut runner = Runner::new(Settings {
        timing_samples: args.samples,
        timeout: Duration::from_secs(args.timeout),
        ..Settings::default()
    });
    // `sim` with a .cu file is CUDA's checker.
    let mut backend = args.backend.map(|b| b.kind(file_lang));
    if args.sanitize {
        let sanitizer;
        (_, backend, sanitizer) = sanitizing((file_lang, backend))?;
        runner = runner.with_sanitizer(sanitizer);
    }
    let kind = match backend {
        Some(b) => b,
        // WGSL falls back to the CPU checker where no GPU adapter exists.
        None => runner.default_backend(file_lang.unwrap_or(Lang::Wgsl)),
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
        Some(path) => {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let mut source = SourceText::from_bytes(bytes, path)?;
            if lang == Lang::Cuda {
                // Its own headers, written in (from inside the book only).
                source = includes::expand(&source, &BookFiles::new(&book.root))?;
            }
            if source.text.trim().is_empty() {
                bail!(
                    "{}: the file is empty; start from the skeleton (`runner show {} --lang {lang}`)",
                    path.display(),
                    puzzle.id()
                );
            }
            (Variant::File, source)
        }
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
    let ran = runner.run_cases(kind, puzzle, variant, &source, args.stress, Until::All)?;
    if args.json {
        let reports: Vec<&RunReport> = ran.iter().map(|(_, report)| report).collect();
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        for (case, report) in &ran {
            if case.overrides.is_some() {
                println!(
                    "\n-- stress run: {} (random inputs, CPU reference)",
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
