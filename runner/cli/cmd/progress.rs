//! `runner progress`: which puzzles pass, in which language, and how many tips were shown.

use crate::learner::Learner;
use crate::term::{self, bold, dim};
use anstyle::AnsiColor;
use anyhow::Result;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::display_path;
use runner::learner::order::learning_order;
use runner::learner::progress::Mark;
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn execute(book: Book, workspace: Option<PathBuf>) -> Result<ExitCode> {
    progress(&Learner::open(book, workspace)?)
}

/// `runner progress`: which puzzles pass, in which language.
fn progress(learner: &Learner) -> Result<ExitCode> {
    let progress = learner.progress.load()?;
    let cell = |p: &Puzzle, lang: Lang| -> (String, usize) {
        let (text, colour) = if p.kernel(lang).is_none() {
            ("–", None)
        } else {
            match progress.mark(p.id(), lang) {
                Some(Mark::Pass) => ("✔ passes", Some(AnsiColor::Green)),
                Some(Mark::Fail) => ("✘ fails", Some(AnsiColor::Red)),
                Some(Mark::Compiles) => ("compiles", Some(AnsiColor::Yellow)),
                None => ("·", None),
            }
        };
        let width = text.chars().count();
        let styled = colour.map_or(text.to_string(), |c| bold(c, text));
        (styled, width)
    };
    let pad = |(text, width): (String, usize), to: usize| {
        format!("{text}{}", " ".repeat(to.saturating_sub(width)))
    };
    let order = learning_order(&learner.book);
    let mut text = format!(
        "{}\n",
        dim(&format!(
            "{:<22} {:<36} {:<10} {:<10} tips",
            "puzzle", "title", "WGSL", "CUDA C"
        ))
    );
    for p in &order {
        let hints = p.spec.raw.hints.len();
        let _ = writeln!(
            text,
            "{:<22} {:<36} {} {} {}/{hints}",
            p.id(),
            truncate(p.title(), 36),
            pad(cell(p, Lang::Wgsl), 10),
            pad(cell(p, Lang::Cuda), 10),
            progress.hints_shown(p.id()),
        );
    }
    for lang in [Lang::Wgsl, Lang::Cuda] {
        let with_kernel = order.iter().filter(|p| p.kernel(lang).is_some()).count();
        let solved = order
            .iter()
            .filter(|p| progress.solved(p.id(), lang))
            .count();
        let _ = writeln!(text, "{}: {solved} of {with_kernel} solved", lang.label());
    }
    let _ = writeln!(
        text,
        "{}",
        dim(&format!(
            "(kept in {}; delete it to start afresh)",
            display_path(&learner.progress.path)
        ))
    );
    term::print(&text);
    Ok(ExitCode::SUCCESS)
}

fn truncate(text: &str, width: usize) -> String {
    if text.chars().count() <= width {
        text.to_string()
    } else {
        let cut: String = text.chars().take(width - 1).collect();
        format!("{cut}…")
    }
}
