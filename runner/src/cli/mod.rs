//! The learner's commands of the CLI: `check`, `watch`, `hint`, `progress`,
//! `reset`. The decisions live in the library (`runner::learner`); these
//! modules read arguments, print, and keep the progress file up to date.

pub mod learn;
pub mod term;
pub mod watch;

use anyhow::{Context as _, Result, bail};
use runner::kernel::Lang;
use runner::learner::check::Verdict;
use runner::learner::{CheckReport, Mark, ProgressFile, Workspace};
use runner::{BackendKind, Book, Puzzle, Runner, Settings};
use std::path::PathBuf;
use std::time::{Duration, SystemTime};

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
        if !created.files.is_empty() {
            eprintln!(
                "created {} file(s) in {}: your copies of the skeletons, to edit (the book's sources stay as they are)",
                created.files.len(),
                runner::diag::display_path(&workspace.root)
            );
        }
        let progress = ProgressFile::in_workspace(&workspace.root);
        Ok(Learner {
            book,
            workspace,
            progress,
        })
    }

    pub fn puzzle(&self, id: &str) -> Result<&Puzzle> {
        self.book.find(id).map_err(anyhow::Error::msg)
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
        if let Some(mark) = mark
            && let Err(e) = self
                .progress
                .update(|p| p.set_mark(&report.puzzle, report.lang, Some(mark)))
        {
            eprintln!("warning: progress not saved: {e}");
        }
    }
}

/// The runner the learner's commands use: no timing runs (a verdict is
/// wanted, fast), and a hang is reported after `timeout`.
pub fn learner_runner(timeout: Duration) -> Runner {
    Runner::new(Settings {
        timing_samples: 0,
        timeout,
    })
}

/// `--lang` and `--backend`, reconciled; `None` when neither was given.
pub fn requested_lang(lang: Option<&str>, backend: Option<&str>) -> Result<Option<Lang>> {
    let from_lang = match lang {
        Some(l) => Some(
            Lang::from_fence(l)
                .with_context(|| format!("unknown language `{l}`; use wgsl or cuda"))?,
        ),
        None => None,
    };
    let from_backend = match backend {
        Some(b) => Some(
            BackendKind::parse(b)
                .with_context(|| format!("unknown backend `{b}`; use wgpu or cuda"))?
                .lang(),
        ),
        None => None,
    };
    match (from_lang, from_backend) {
        (Some(l), Some(b)) if l != b => bail!(
            "--lang {l} and --backend {} disagree: the {} backend runs {} kernels",
            backend.unwrap_or_default(),
            backend.unwrap_or_default(),
            b.label()
        ),
        (l, b) => Ok(l.or(b)),
    }
}

/// The language to check `puzzle` in when the learner did not say: among
/// the languages this machine can run, the learner's most recently saved
/// copy (WGSL on a tie); if none can run, the most recently saved copy.
pub fn best_lang(learner: &Learner, runner: &Runner, puzzle: &Puzzle) -> Result<Lang> {
    let langs: Vec<Lang> = [Lang::Wgsl, Lang::Cuda]
        .into_iter()
        .filter(|&l| puzzle.kernel(l).is_some())
        .collect();
    let runs = |l: Lang| {
        runner
            .backend(BackendKind::for_lang(l))
            .is_ok_and(|b| b.runs_kernels())
    };
    let saved = |l: Lang| {
        std::fs::metadata(learner.workspace.file(puzzle, l))
            .and_then(|m| m.modified())
            .unwrap_or(SystemTime::UNIX_EPOCH)
    };
    let runnable: Vec<Lang> = langs.iter().copied().filter(|&l| runs(l)).collect();
    let pool = if runnable.is_empty() {
        &langs
    } else {
        &runnable
    };
    // Later saves win; a tie (both untouched) keeps the first, WGSL.
    let mut best: Option<Lang> = None;
    for &l in pool {
        if best.is_none_or(|b| saved(l) > saved(b) + Duration::from_secs(1)) {
            best = Some(l);
        }
    }
    best.with_context(|| format!("`{}` has no kernel to complete", puzzle.id()))
}
