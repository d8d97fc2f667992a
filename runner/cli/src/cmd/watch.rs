//! `runner watch`: checks the learner's file on every save.
//!
//! On a terminal each check replaces the screen; piped, checks are appended
//! one after another, each under a rule. When the puzzle being worked on
//! passes, the watch moves on to the next unsolved one; a save to another
//! puzzle's file switches to that puzzle.
//!
//! A kernel that hangs keeps the device busy for good (wgpu cannot cancel
//! it), so after a hang the watch starts itself afresh in the same terminal.

use crate::args::{BackendArg, LangArg, lang_and_backend, sanitizing};
use crate::learner::{Learner, check_one, default_lang, learner_runner};
use crate::term::{self, dim};
use anyhow::{Context, Result};
use clap::Args;
use notify_debouncer_full::DebouncedEvent;
use notify_debouncer_full::notify::{EventKind, RecursiveMode};
use puzzle_core::assess::learner::Verdict;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::display_path;
use runner::backend::Sanitizer;
use runner::book::BookFiles;
use runner::learner::{learning_order, next_unsolved, render};
use runner::run::Runner;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long the watch waits for a save to settle (editors write in steps).
const SETTLE: Duration = Duration::from_millis(60);

/// Check on every save; when the puzzle passes, move on to the next unsolved one.
#[derive(Args)]
pub struct WatchArgs {
    /// Where to start (default: the first unsolved puzzle).
    puzzle: Option<String>,
    /// Default: as for `check`.
    #[arg(long, value_enum)]
    lang: Option<LangArg>,
    /// Default: as for `check`.
    #[arg(long, value_enum)]
    backend: Option<BackendArg>,
    /// Seconds before a kernel that has not finished is reported as hung.
    #[arg(long, default_value_t = 5)]
    timeout: u64,
    /// CUDA only: run the kernel again under NVIDIA's compute-sanitizer
    /// (memcheck, racecheck, synccheck, initcheck) and report what it finds
    /// at your lines; needs compute-sanitizer from the CUDA toolkit.
    #[arg(long)]
    sanitize: bool,
    /// After every check, draw who read and wrote which element to your
    /// file's name + `.svg` (as `check --draw` does), kept fresh on every save.
    #[arg(long)]
    draw: bool,
    /// Internal: started again after a hang.
    #[arg(long, hide = true)]
    restarted: bool,
}

struct Options {
    puzzle: Option<String>,
    lang: Option<Lang>,
    backend: Option<BackendKind>,
    timeout: Duration,
    /// Started again after a hang: skip the first check, whose report is on screen.
    restarted: bool,
    /// compute-sanitizer over every CUDA check (`--sanitize`).
    sanitizer: Option<Sanitizer>,
    /// The access diagram after every check (`--draw`).
    draw: bool,
}

pub fn execute(book: Book, workspace: Option<PathBuf>, args: WatchArgs) -> Result<ExitCode> {
    let (mut lang, mut backend) = lang_and_backend(args.lang, args.backend)?;
    let mut sanitizer = None;
    if args.sanitize {
        let found;
        (lang, backend, found) = sanitizing((lang, backend))?;
        sanitizer = Some(found);
    }
    let learner = Learner::open(book, workspace)?;
    watch(
        &learner,
        Options {
            puzzle: args.puzzle,
            lang,
            backend,
            timeout: Duration::from_secs(args.timeout),
            restarted: args.restarted,
            sanitizer,
            draw: args.draw,
        },
    )
}

/// The puzzle and language being worked on, and the backend asked for.
struct Current<'b> {
    puzzle: &'b Puzzle,
    lang: Lang,
    backend: Option<BackendKind>,
}

fn watch(learner: &Learner, options: Options) -> Result<ExitCode> {
    let fresh_runner = || {
        let runner = learner_runner(options.timeout);
        match &options.sanitizer {
            Some(s) => runner.with_sanitizer(s.clone()),
            None => runner,
        }
    };
    let mut runner = fresh_runner();
    let order = learning_order(&learner.book);
    let progress = learner.progress.load().unwrap_or_default();
    // A named puzzle: the language as `check` would take it. None named: the
    // workspace's language, and its first unsolved puzzle.
    let (first, lang) = match &options.puzzle {
        Some(id) => {
            let puzzle = learner.puzzle(id)?;
            let lang = match options.lang {
                Some(l) => l,
                None => default_lang(learner, &runner, Some(puzzle))?,
            };
            (puzzle, lang)
        }
        None => {
            let lang = match options.lang {
                Some(l) => l,
                None => default_lang(learner, &runner, None)?,
            };
            match next_unsolved(&order, None, lang, |id| progress.solved(id, lang)) {
                Some(p) => (p, lang),
                None => {
                    println!(
                        "Every puzzle with a {} kernel is solved. Name one to watch it anyway: `runner watch p03_guard`.",
                        lang.label()
                    );
                    return Ok(ExitCode::SUCCESS);
                }
            }
        }
    };
    let mut current = Current {
        puzzle: first,
        lang,
        backend: options.backend,
    };

    let (tx, rx) = mpsc::channel();
    let mut debouncer = notify_debouncer_full::new_debouncer(SETTLE, None, tx)
        .context("cannot watch files on this system")?;
    debouncer
        .watch(&learner.workspace.root, RecursiveMode::Recursive)
        .with_context(|| format!("cannot watch {}", learner.workspace.root.display()))?;

    let mut count = 0;
    if options.restarted {
        println!(
            "{}",
            dim("The checker started afresh after the hang. Save again to check.")
        );
    } else {
        run_check(
            learner,
            &runner,
            &mut current,
            &mut count,
            (None, options.draw),
        );
    }
    for batch in rx {
        let events = match batch {
            Ok(events) => events,
            Err(errors) => {
                for e in errors {
                    eprintln!("warning: watching failed for a moment: {e}");
                }
                continue;
            }
        };
        match deleted(learner, &events) {
            Some(Deleted::Workspace) => {
                println!(
                    "{} was deleted, so there is nothing left to watch. `runner check` or \
                     `runner watch` creates it again, with fresh copies of the skeletons.",
                    display_path(&learner.workspace.root)
                );
                return Ok(ExitCode::FAILURE);
            }
            Some(Deleted::Puzzle(what, id)) => println!(
                "{what} was deleted. `runner reset {id}` puts the skeleton back; still watching."
            ),
            None => {}
        }
        // The last learner's file written in this batch. Opening a file is an
        // event too (the check's own read would re-trigger it), and editors
        // write temporary files beside the real one: both are ignored.
        let Some((puzzle, lang)) = events
            .iter()
            .filter(|e| matches!(e.kind, EventKind::Create(_) | EventKind::Modify(_)))
            .flat_map(|e| &e.paths)
            .rev()
            .find_map(|path| learner.workspace.locate(&learner.book, path))
        else {
            continue;
        };
        current = Current {
            puzzle,
            lang,
            backend: options.backend,
        };
        let started = Instant::now();
        let verdict = run_check(
            learner,
            &runner,
            &mut current,
            &mut count,
            (Some(started), options.draw),
        );
        if verdict == Some(Verdict::Hang) {
            restart_after_hang(learner, &current, &options)?;
            // Where a process cannot replace itself, a fresh runner opens a new device.
            runner = fresh_runner();
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Something the learner deleted under the watch.
enum Deleted {
    /// The whole workspace: nothing is left to watch.
    Workspace,
    /// A learner's file or a puzzle's folder (its path in words), and the puzzle's id.
    Puzzle(String, String),
}

/// What this batch of events deleted, said once: the workspace, else the
/// last puzzle file or folder removed. Editors that save by replacing a
/// file remove it and create it again in one batch; that is no deletion.
fn deleted(learner: &Learner, events: &[DebouncedEvent]) -> Option<Deleted> {
    let root = &learner.workspace.root;
    let removed: Vec<&PathBuf> = events
        .iter()
        .filter(|e| matches!(e.kind, EventKind::Remove(_)))
        .flat_map(|e| &e.paths)
        .collect();
    if removed.is_empty() {
        return None;
    }
    if !root.exists() {
        return Some(Deleted::Workspace);
    }
    removed
        .into_iter()
        .rev()
        .filter(|path| !path.exists())
        .find_map(|path| {
            if let Some((puzzle, _)) = learner.workspace.locate(&learner.book, path) {
                return Some(Deleted::Puzzle(display_path(path), puzzle.id().to_string()));
            }
            let id = path.file_name()?.to_str()?;
            (path.parent() == Some(root.as_path()) && learner.book.find(id).is_ok()).then(|| {
                Deleted::Puzzle(format!("The folder {}", display_path(path)), id.to_string())
            })
        })
}

/// Checks the current puzzle, prints the report, and moves on after a pass.
fn run_check<'b>(
    learner: &'b Learner,
    runner: &Runner,
    current: &mut Current<'b>,
    count: &mut usize,
    (started, draw): (Option<Instant>, bool),
) -> Option<Verdict> {
    *count += 1;
    let file = learner.workspace.file(current.puzzle, current.lang);
    let report = match check_one(
        learner,
        runner,
        current.puzzle,
        Some(current.lang),
        current.backend,
    ) {
        Ok(report) => report,
        Err(e) => {
            eprintln!("error: {e:#}");
            return None;
        }
    };
    let mut text = String::new();
    if term::is_terminal() {
        term::clear_screen();
    } else {
        text.push_str(&format!("── check {count}: {} ──\n", display_path(&file)));
    }
    text.push_str(&render(&report, runner::learner::width()));
    // Drawn before moving on: the picture is of the file just checked.
    if draw {
        let files = BookFiles::new(&learner.book.root);
        match runner::learner::draw(runner, current.puzzle, current.lang, &file, &files) {
            Ok(path) => text.push_str(&format!("Drawn: {}\n", display_path(&path))),
            Err(e) => text.push_str(&format!("--draw: {e}\n")),
        }
    }
    let took = started.map_or(String::new(), |s| {
        format!("checked in {:.2} s · ", s.elapsed().as_secs_f64())
    });
    if report.passed() {
        let order = learning_order(&learner.book);
        let progress = learner.progress.load().unwrap_or_default();
        if let Some(next) = next_unsolved(&order, Some(current.puzzle.id()), current.lang, |id| {
            progress.solved(id, current.lang)
        }) {
            current.puzzle = next;
        }
    }
    text.push_str(&dim(&format!(
        "{took}watching {} · now on {} · Ctrl-C stops\n",
        display_path(&learner.workspace.root),
        current.puzzle.id()
    )));
    term::print(&text);
    Some(report.verdict)
}

/// Replaces this process with a fresh watch on the same puzzle: the hung
/// kernel's device goes with the old one. Returns only where that is not possible.
fn restart_after_hang(learner: &Learner, current: &Current, options: &Options) -> Result<()> {
    let timeout = options.timeout;
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let exe = std::env::current_exe()?;
        let error = std::process::Command::new(exe)
            .arg("--book")
            .arg(&learner.book.root)
            .arg("--workspace")
            .arg(&learner.workspace.root)
            .arg("watch")
            .arg(current.puzzle.id())
            .args(["--lang", &current.lang.to_string()])
            .args(current.backend.map(|b| format!("--backend={b}")))
            .args(["--timeout", &timeout.as_secs().to_string()])
            .args(options.sanitizer.is_some().then_some("--sanitize"))
            .args(options.draw.then_some("--draw"))
            .arg("--restarted")
            .exec();
        eprintln!("warning: could not restart after the hang: {error}");
    }
    #[cfg(not(unix))]
    let _ = (learner, current, timeout);
    Ok(())
}
