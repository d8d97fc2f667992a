//! What the learner's commands (`check`, `watch`, `hint`, `progress`,
//! `reset`) share: the book, the workspace of the learner's copies, the
//! progress file, and the choice of language when the learner names none.

use anyhow::{Context as _, Result, bail};
use puzzle_core::assess::execute::Settings;
use puzzle_core::assess::learner::{CheckReport, Verdict};
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::display_path;
use runner::book::BookFiles;
use runner::learner::{
    Facts, Mark, ProgressFile, Saved, Workspace, check, learning_order, next_unsolved,
};
use runner::run::Runner;
use std::path::PathBuf;
use std::time::Duration;

/// What every learner's command works on.
pub struct Learner {
    pub book: Book,
    pub workspace: Workspace,
    pub progress: ProgressFile,
}

impl Learner {
    /// Opens the workspace, creating the copies that are missing (and saying so).
    pub fn open(book: Book, dir: Option<PathBuf>) -> Result<Learner> {
        let workspace = Workspace::new(&book, dir);
        let created = workspace.ensure(&book).with_context(|| {
            format!(
                "cannot create the learner's workspace in {}",
                workspace.root.display()
            )
        })?;
        for (from, to) in &created.moved {
            eprintln!(
                "moved your copy {} to {}: the book renamed it (docs/AUTHORING.md, \"Names\")",
                display_path(from),
                display_path(to)
            );
        }
        if !created.files.is_empty() {
            eprintln!(
                "created {} file(s) in {}: your copies of the skeletons, to edit (the book's sources stay as they are)",
                created.files.len(),
                puzzle_core::source::diag::display_path(&workspace.root)
            );
        }
        let mut progress = ProgressFile::in_workspace(&workspace.root);
        progress.on_wait = Some(|path| {
            eprintln!(
                "waiting for another runner command to finish writing {}",
                display_path(path)
            )
        });
        Ok(Learner {
            book,
            workspace,
            progress,
        })
    }

    pub fn puzzle(&self, id: &str) -> Result<&Puzzle> {
        Ok(self.book.find_as_meant(id)?)
    }

    /// Saves what a check says about the learner's progress.
    pub fn record(&self, report: &CheckReport) {
        let mark = match report.verdict {
            Verdict::Pass => Some(Mark::Pass),
            Verdict::Fail | Verdict::CompileError | Verdict::Hang | Verdict::BadInput => {
                Some(Mark::Fail)
            }
            Verdict::CompiledOnly => Some(Mark::Compiles),
            // Nothing was learned about the kernel.
            Verdict::Unavailable | Verdict::Error => None,
        };
        let Some(mark) = mark else { return };
        match self
            .progress
            .update_saying(|p| p.set_mark(&report.puzzle, report.lang, Some(mark)))
        {
            Ok(((), saved)) => warn_moved_aside(&saved),
            Err(e) => eprintln!("warning: {e}"),
        }
    }
}

/// Says so when an update found a progress file it could not read and set it aside.
pub fn warn_moved_aside(saved: &Saved) {
    if let Some(aside) = &saved.moved_aside {
        eprintln!(
            "warning: the progress file could not be read, so it was kept as {} and a new one was started",
            display_path(aside)
        );
    }
}

/// The runner the learner's commands use: no timing runs (a verdict is
/// wanted, fast), and a hang is reported after `timeout`.
pub fn learner_runner(timeout: Duration) -> Runner {
    Runner::new(Settings {
        timing_samples: 0,
        timeout,
        ..Settings::default()
    })
}

/// The language to work in when the learner did not say, by the one rule
/// of [`runner::learner::default_lang`]: for `puzzle`, or, before a puzzle
/// is chosen (`runner watch` with none named), for the whole workspace.
pub fn default_lang(learner: &Learner, runner: &Runner, puzzle: Option<&Puzzle>) -> Result<Lang> {
    let offered: Vec<Lang> = match puzzle {
        Some(p) => Lang::ALL
            .into_iter()
            .filter(|&l| p.kernel(l).is_some())
            .collect(),
        None => Lang::ALL.to_vec(),
    };
    // WGSL "runs" on the CPU checker where there is no GPU adapter, as a check would run it.
    let runnable = offered
        .iter()
        .copied()
        .filter(|&l| {
            runner
                .backend(runner.default_backend(l))
                .is_ok_and(|b| b.runs_kernels())
        })
        .collect();
    let changed_here = puzzle.map_or(Vec::new(), |p| {
        offered
            .iter()
            .filter_map(|&l| Some((l, learner.workspace.changed_at(p, l)?)))
            .collect()
    });
    // The rest of the workspace matters only when this puzzle has no change:
    // a change of its own decides, or, in a language that cannot run here,
    // leaves only the other. So `check --all` reads it for untouched puzzles only.
    let changed_last = if changed_here.is_empty() {
        learner.workspace.changed_last(&learner.book)
    } else {
        None
    };
    let facts = Facts {
        offered,
        runnable,
        changed_here,
        changed_last,
    };
    runner::learner::default_lang(&facts).with_context(|| match puzzle {
        Some(p) => format!("`{}` has no kernel to complete", p.id()),
        None => "the book has no kernel to complete".to_string(),
    })
}

/// Checks one puzzle's learner's file, records the verdict, and says what comes next.
///
/// `lang` and `backend` are what the learner asked for, if anything; the
/// backend is otherwise the one that runs the language here.
pub fn check_one(
    learner: &Learner,
    runner: &Runner,
    puzzle: &Puzzle,
    lang: Option<Lang>,
    backend: Option<BackendKind>,
) -> Result<CheckReport> {
    let lang = match lang {
        Some(l) => l,
        None => default_lang(learner, runner, Some(puzzle))?,
    };
    if let Err(e) = puzzle.require_kernel(lang) {
        bail!("{}", e.message);
    }
    let kind = backend.unwrap_or_else(|| runner.default_backend(lang));
    let file = learner.workspace.file(puzzle, lang);
    let files = BookFiles::new(&learner.book.root);
    let mut report = check(runner, puzzle, lang, kind, &file, &files);
    learner.record(&report);
    if report.passed() {
        report.next = after_pass(learner, puzzle, lang);
    }
    Ok(report)
}

/// "Solved. Next: p04_map_2d (2D Map): edit .learner/…", or the end of the road.
pub fn after_pass(learner: &Learner, puzzle: &Puzzle, lang: Lang) -> String {
    let progress = learner.progress.load().unwrap_or_default();
    let order = learning_order(&learner.book);
    match next_unsolved(&order, Some(puzzle.id()), lang, |id| {
        progress.solved(id, lang)
    }) {
        Some(next) => format!(
            "Solved. Next: {} ({}): edit {}",
            next.id(),
            next.title(),
            display_path(&learner.workspace.file(next, lang))
        ),
        None => format!(
            "Solved, and with it every puzzle that has a {} kernel. Well done.",
            lang.label()
        ),
    }
}
