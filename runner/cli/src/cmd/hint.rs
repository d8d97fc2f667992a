//! `runner hint`: the chapter's tips for a puzzle, one more each time.

use crate::learner::{Learner, warn_moved_aside};
use crate::term::{self, bold, dim};
use anstyle::AnsiColor;
use anyhow::Result;
use clap::Args;
use puzzle_core::chapter::book::Book;
use puzzle_core::source::diag::display_path;
use runner::learner::{fit, width};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

/// Show the chapter's tips for a puzzle, one more each time you ask.
#[derive(Args)]
pub struct HintArgs {
    puzzle: String,
}

pub fn execute(book: Book, workspace: Option<PathBuf>, args: HintArgs) -> Result<ExitCode> {
    hint(&Learner::open(book, workspace)?, &args.puzzle)
}

/// `runner hint PUZZLE`: one more tip each time.
fn hint(learner: &Learner, id: &str) -> Result<ExitCode> {
    let puzzle = learner.puzzle(id)?;
    let hints = &puzzle.spec.raw.hints;
    if hints.is_empty() {
        term::print(&format!(
            "`{}` has no tips; its chapter ({}) explains the idea.\n",
            puzzle.id(),
            display_path(&puzzle.chapter)
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let (shown, saved) = learner
        .progress
        .update_saying(|p| p.reveal_hint(puzzle.id(), hints.len()))?;
    warn_moved_aside(&saved);
    let width = width();
    let mut text = fit(
        &format!(
            "Tips for {} ({}), {shown} of {}:",
            puzzle.id(),
            puzzle.title(),
            hints.len()
        ),
        width,
    );
    for (i, tip) in hints.iter().take(shown).enumerate() {
        // Fitted first, then styled line by line: the styles take no columns,
        // and each wrapped line keeps the tip's colour.
        for line in fit(&format!("  {}. {tip}", i + 1), width).lines() {
            let line = if i + 1 == shown {
                bold(AnsiColor::Cyan, line)
            } else {
                dim(line)
            };
            let _ = writeln!(text, "{line}");
        }
    }
    let next = if shown < hints.len() {
        format!(
            "Ask again (`runner hint {}`) for the next tip.",
            puzzle.id()
        )
    } else {
        format!(
            "That was the last tip. The chapter's collapsed solution shows one way \
             (`runner show {} --solution`).",
            puzzle.id()
        )
    };
    text.push_str(&fit(&next, width));
    term::print(&text);
    Ok(ExitCode::SUCCESS)
}
