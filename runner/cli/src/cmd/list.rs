//! `runner list`: every puzzle, its kernels and its title, in reading order
//! (the chapters as `SUMMARY.md` lists them, the puzzles as each chapter
//! declares them): the order `progress`, `check --all` and `watch` follow.

use anyhow::Result;
use puzzle_core::chapter::book::Book;
use runner::learner::learning_order;
use std::fmt::Write;
use std::process::ExitCode;

pub fn execute(book: &Book) -> Result<ExitCode> {
    crate::term::print(&listing(book, runner::learner::width()));
    Ok(ExitCode::SUCCESS)
}

/// One entry a puzzle: its id (the first word, for scripts such as
/// `.ci/gpu/remote`), its languages, then its title, which may be long,
/// last. A title that would run past `width` columns wraps under itself;
/// its further lines start with spaces, so a line that starts with a word
/// is a puzzle's.
fn listing(book: &Book, width: usize) -> String {
    let order = learning_order(book);
    let id_width = order.iter().map(|p| p.id().len()).max().unwrap_or(0);
    let mut text = String::new();
    for p in order {
        let langs: Vec<&str> = p.kernels.keys().map(|l| l.label()).collect();
        let head = format!("{:<id_width$}  {:<12}  ", p.id(), langs.join(", "));
        let hang = " ".repeat(head.chars().count());
        let options = textwrap::Options::new(width)
            .break_words(false)
            .initial_indent(&head)
            .subsequent_indent(&hang);
        let _ = writeln!(text, "{}", textwrap::wrap(p.title(), options).join("\n"));
    }
    text
}
