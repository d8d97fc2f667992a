//! `runner list`: every puzzle, its kernels and its title, in reading order
//! (the chapters as `SUMMARY.md` lists them, the puzzles as each chapter
//! declares them): the order `progress`, `check --all` and `watch` follow.

use anyhow::Result;
use puzzle_core::chapter::book::Book;
use runner::learner::order::learning_order;
use std::fmt::Write;
use std::process::ExitCode;

pub fn execute(book: &Book) -> Result<ExitCode> {
    crate::term::print(&listing(book));
    Ok(ExitCode::SUCCESS)
}

/// One line a puzzle: its id (the first word, for scripts such as
/// `.ci/gpu/remote`), its languages, then its title, which may be long, last.
fn listing(book: &Book) -> String {
    let order = learning_order(book);
    let id_width = order.iter().map(|p| p.id().len()).max().unwrap_or(0);
    let mut text = String::new();
    for p in order {
        let langs: Vec<&str> = p.kernels.keys().map(|l| l.label()).collect();
        let _ = writeln!(
            text,
            "{:<id_width$}  {:<12}  {}",
            p.id(),
            langs.join(", "),
            p.title()
        );
    }
    text
}
