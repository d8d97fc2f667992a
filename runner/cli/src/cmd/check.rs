//! `runner check`: the learner's copy of a puzzle checked at the teaching
//! size, then at the stress sizes, with what is wrong in words; or every
//! puzzle at once with `--all`.

use crate::args::{BackendArg, LangArg, lang_and_backend, sanitizing};
use crate::learner::{Learner, check_one, learner_runner};
use crate::term::{self, bold};
use anstyle::AnsiColor;
use anyhow::Result;
use clap::Args;
use puzzle_core::assess::learner::{CheckReport, Verdict};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use runner::learner::{learning_order, render};
use runner::run::Runner;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Check your copy of a puzzle (.learner/<puzzle>/…): the teaching size,
/// then the stress sizes, and what is wrong in words.
///
/// Exit status: 0 solved, 1 your kernel is wrong (or does not compile,
/// hangs, or the file is empty), 2 it could not be judged here.
#[derive(Args)]
pub struct CheckArgs {
    /// Puzzle id, e.g. p03_guard (see `runner list`); or --all.
    #[arg(required_unless_present = "all")]
    puzzle: Option<String>,
    /// Every puzzle, in reading order, with a progress bar.
    #[arg(long, conflicts_with = "puzzle")]
    all: bool,
    /// Default: of the languages this machine runs, that of the copy you
    /// changed last (this puzzle's, else any puzzle's); WGSL before any change.
    #[arg(long, value_enum)]
    lang: Option<LangArg>,
    /// Where to run it (default: the backend that runs the language here);
    /// `sim` is the CPU checker, which also reports races and out-of-bounds indices.
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
    /// Print the report as JSON (the shape is in docs/LEARNER.md).
    #[arg(long)]
    json: bool,
    /// Seconds before a kernel that has not finished is reported as hung.
    #[arg(long, default_value_t = 5)]
    timeout: u64,
    /// CUDA only: run the kernel again under NVIDIA's compute-sanitizer
    /// (memcheck, racecheck, synccheck, initcheck) and report what it finds
    /// at your lines; needs compute-sanitizer from the CUDA toolkit.
    #[arg(long)]
    sanitize: bool,
    /// Also draw who read and wrote which element of every buffer (on the
    /// CPU checker, at the teaching size) to your file's name + `.svg`.
    #[arg(long, conflicts_with = "all")]
    draw: bool,
}

pub fn execute(book: Book, workspace: Option<PathBuf>, args: CheckArgs) -> Result<ExitCode> {
    let (mut lang, mut backend) = lang_and_backend(args.lang, args.backend)?;
    let learner = Learner::open(book, workspace)?;
    let mut runner = learner_runner(Duration::from_secs(args.timeout));
    if args.sanitize {
        let sanitizer;
        (lang, backend, sanitizer) = sanitizing((lang, backend))?;
        runner = runner.with_sanitizer(sanitizer);
    }
    match args.puzzle {
        Some(puzzle) if !args.all => {
            let puzzle = learner.puzzle(&puzzle)?;
            let code = one(&learner, &runner, puzzle, (lang, backend), args.json)?;
            if args.draw {
                draw(&learner, &runner, puzzle, lang)?;
            }
            Ok(code)
        }
        _ => all(&learner, &runner, (lang, backend), args.json),
    }
}

/// `runner check PUZZLE`: the report as text or JSON; the exit status says the verdict.
fn one(
    learner: &Learner,
    runner: &Runner,
    puzzle: &Puzzle,
    (lang, backend): (Option<Lang>, Option<BackendKind>),
    json: bool,
) -> Result<ExitCode> {
    let report = check_one(learner, runner, puzzle, lang, backend)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        term::print(&render(&report, runner::learner::width()));
    }
    Ok(ExitCode::from(report.verdict.exit_code()))
}

/// `--draw`: the access diagram of the learner's copy, beside it; said on
/// stderr, so `--json` keeps stdout to itself.
pub fn draw(learner: &Learner, runner: &Runner, puzzle: &Puzzle, lang: Option<Lang>) -> Result<()> {
    let lang = match lang {
        Some(l) => l,
        None => crate::learner::default_lang(learner, runner, Some(puzzle))?,
    };
    let file = learner.workspace.file(puzzle, lang);
    let files = runner::book::BookFiles::new(&learner.book.root);
    match runner::learner::draw(runner, puzzle, lang, &file, &files) {
        Ok(path) => eprintln!(
            "Drawn: {} (who read and wrote which element, at the teaching size; open it in a browser)",
            puzzle_core::source::diag::display_path(&path)
        ),
        Err(e) => eprintln!("--draw: {e}"),
    }
    Ok(())
}

/// `runner check --all`: every puzzle in reading order, with a progress bar
/// on a terminal, then one line per puzzle (or a JSON array).
fn all(
    learner: &Learner,
    runner: &Runner,
    (lang, backend): (Option<Lang>, Option<BackendKind>),
    json: bool,
) -> Result<ExitCode> {
    let order = learning_order(&learner.book);
    let chosen: Vec<&Puzzle> = order
        .into_iter()
        .filter(|p| lang.is_none_or(|l| p.kernel(l).is_some()))
        .collect();
    let bar = indicatif::ProgressBar::new(chosen.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut reports = Vec::new();
    for puzzle in chosen {
        bar.set_message(puzzle.id().to_string());
        reports.push(check_one(learner, runner, puzzle, lang, backend)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        let mut text = String::new();
        for r in &reports {
            let _ = writeln!(
                text,
                "{} {:<22} {:<6} {}",
                verdict_mark(r.verdict),
                r.puzzle,
                r.lang.to_string(),
                r.summary
            );
        }
        let solved = reports.iter().filter(|r| r.passed()).count();
        let _ = writeln!(text, "{solved} of {} pass", reports.len());
        term::print(&text);
    }
    let code = if reports.iter().all(CheckReport::passed) {
        0
    } else if reports.iter().any(|r| r.verdict.exit_code() == 1) {
        1
    } else {
        2
    };
    Ok(ExitCode::from(code))
}

fn verdict_mark(verdict: Verdict) -> String {
    match verdict {
        Verdict::Pass => bold(AnsiColor::Green, "✔"),
        Verdict::CompiledOnly | Verdict::Unavailable => bold(AnsiColor::Yellow, "–"),
        _ => bold(AnsiColor::Red, "✘"),
    }
}
