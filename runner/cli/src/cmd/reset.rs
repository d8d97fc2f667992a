//! `runner reset`: the skeleton back in the learner's copy, their version kept beside it.

use crate::args::LangArg;
use crate::learner::{Learner, warn_moved_aside};
use anyhow::{Result, bail};
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::display_path;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Put the skeleton back into your copy (the old one is kept as .bak).
#[derive(Args)]
pub struct ResetArgs {
    puzzle: String,
    /// Default: both languages.
    #[arg(long, value_enum)]
    lang: Option<LangArg>,
}

pub fn execute(book: Book, workspace: Option<PathBuf>, args: ResetArgs) -> Result<ExitCode> {
    reset(
        &Learner::open(book, workspace)?,
        &args.puzzle,
        args.lang.map(Lang::from),
    )
}

/// `runner reset PUZZLE`: the skeleton back in the learner's copy (both languages unless one is named).
fn reset(learner: &Learner, id: &str, lang: Option<Lang>) -> Result<ExitCode> {
    let puzzle = learner.puzzle(id)?;
    let langs: Vec<Lang> = Lang::ALL
        .into_iter()
        .filter(|&l| lang.is_none_or(|want| want == l) && puzzle.kernel(l).is_some())
        .collect();
    if langs.is_empty() {
        bail!(
            "`{}` has no {} kernel to reset",
            puzzle.id(),
            lang.map_or("", Lang::label)
        );
    }
    for l in langs {
        let file = learner.workspace.file(puzzle, l);
        let backup = learner.workspace.reset(puzzle, l)?;
        let mut line = format!("restored the skeleton in {}", display_path(&file));
        if let Some(backup) = backup {
            let _ = write!(line, " (your version is in {})", display_path(&backup));
        }
        println!("{line}");
        match learner
            .progress
            .update_saying(|p| p.set_mark(puzzle.id(), l, None))
        {
            Ok(((), saved)) => warn_moved_aside(&saved),
            Err(e) => eprintln!("warning: {e}"),
        }
    }
    Ok(ExitCode::SUCCESS)
}
