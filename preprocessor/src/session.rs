//! What every chapter of one build is processed with: the runner, the book
//! loaded once, the recordings, baselines and measured precision the pages
//! quote, and the count of kernel sections checked so far.

use crate::build_progress::Progress;
use crate::config::OnFailure;
use crate::precision;
use crate::roofline::roofs::Memo;
use puzzle_core::chapter::puzzle::{Puzzle, chapter_puzzles};
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::Located;
use runner::book::BookFiles;
use runner::perf::Baseline;
use runner::perf::record::Recording;
use runner::run::Runner;
use std::path::{Path, PathBuf};

/// What every chapter is processed with.
pub struct Session {
    pub runner: Runner,
    pub on_failure: OnFailure,
    /// GPU results recorded by `runner record` (results/*.json): set
    /// through [`Session::set_recordings`], which forgets their roofs.
    pub(crate) recordings: Vec<Recording>,
    /// Vendor libraries timed on the same GPUs (results/baselines/*.json).
    pub baselines: Vec<Baseline>,
    /// How the number formats rounded there (results/precision/*.json).
    pub precision: Vec<precision::Measured>,
    /// The book's root: roofline blocks name puzzles of any chapter.
    pub root: PathBuf,
    book: std::sync::OnceLock<Result<puzzle_core::chapter::book::Book, Vec<Located>>>,
    /// The files chapters may include: those inside the book.
    pub(crate) files: BookFiles,
    /// Each recording's roofs, worked out once for every roofline block.
    pub(crate) roofs: Memo,
    /// Kernel sections checked so far, said on stderr in a long build.
    progress: std::sync::OnceLock<Progress>,
}

impl Session {
    pub fn new(
        runner: Runner,
        on_failure: OnFailure,
        recordings: Vec<Recording>,
        root: PathBuf,
    ) -> Session {
        Session {
            runner,
            on_failure,
            roofs: Memo::default(),
            recordings,
            baselines: Vec::new(),
            precision: Vec::new(),
            files: BookFiles::new(&root),
            root,
            book: std::sync::OnceLock::new(),
            progress: std::sync::OnceLock::new(),
        }
    }

    /// Replaces the recordings (a test's made-up GPU), and the roofs worked out from the old ones.
    pub fn set_recordings(&mut self, recordings: Vec<Recording>) {
        self.recordings = recordings;
        self.roofs = Memo::default();
    }

    /// Counts a checked kernel section against every section of the book.
    pub(crate) fn checked(&self, puzzle: &Puzzle, lang: Lang) {
        let progress = self.progress.get_or_init(|| {
            let total = self
                .loaded()
                .map_or(0, |book| book.puzzles.iter().map(|p| p.kernels.len()).sum());
            Progress::new(total)
        });
        progress.checked(&format!("{}, {}", puzzle.id(), lang.label()));
    }

    /// The puzzles of the chapter at `file`, in the order it declares them.
    /// From the book, read once for every chapter; where the book does not
    /// load, from the chapter alone, so its own problems are named (and
    /// under `continue` a broken chapter spoils only its own page).
    pub(crate) fn chapter_puzzles(&self, file: &Path) -> Result<Vec<Puzzle>, Vec<Located>> {
        let book_errors = match self.loaded() {
            Ok(book) => {
                let mut found: Vec<Puzzle> = book
                    .puzzles
                    .iter()
                    .filter(|p| p.chapter == file)
                    .cloned()
                    .collect();
                found.sort_by_key(|p| p.spec.origin.first_line);
                return Ok(found);
            }
            Err(errors) => errors,
        };
        // The source, not mdBook's text: its kernel lines still know their files.
        let source = std::fs::read_to_string(file)
            .map_err(|e| vec![Located::new(file, 0, format!("cannot read: {e}"))])?;
        let puzzles = chapter_puzzles(&source, file, &self.files)?;
        // What only the whole book shows (an id another chapter uses too)
        // is this chapter's problem where it is located here.
        let here: Vec<Located> = book_errors
            .iter()
            .filter(|e| e.file == file)
            .cloned()
            .collect();
        if here.is_empty() {
            Ok(puzzles)
        } else {
            Err(here)
        }
    }

    /// Every puzzle of the book, loaded once, or every problem that stops it loading.
    fn loaded(&self) -> Result<&puzzle_core::chapter::book::Book, &Vec<Located>> {
        self.book
            .get_or_init(|| runner::book::load_with(&self.root, &self.files))
            .as_ref()
    }

    /// Every puzzle of the book, or its problems in words.
    pub(crate) fn book(&self) -> Result<&puzzle_core::chapter::book::Book, String> {
        self.loaded().map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }
}
