//! `runner progress`: which puzzles pass, in which language, and how many tips were shown.

use crate::learner::Learner;
use crate::term::{self, bold, dim};
use anstyle::AnsiColor;
use anyhow::Result;
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::display_path;
use runner::learner::{Mark, fit, learning_order, width};
use std::fmt::Write;
use std::path::PathBuf;
use std::process::ExitCode;

pub fn execute(book: Book, workspace: Option<PathBuf>) -> Result<ExitCode> {
    progress(&Learner::open(book, workspace)?)
}

/// What a cell of the table shows for one puzzle in one language.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Cell {
    Pass,
    Fail,
    Compiles,
    Unchecked,
    NoKernel,
}

impl Cell {
    /// Every cell, in the order the legend explains them.
    const ALL: [Cell; 5] = [
        Cell::Pass,
        Cell::Fail,
        Cell::Compiles,
        Cell::Unchecked,
        Cell::NoKernel,
    ];

    fn of(has_kernel: bool, mark: Option<Mark>) -> Cell {
        match (has_kernel, mark) {
            (false, _) => Cell::NoKernel,
            (true, Some(Mark::Pass)) => Cell::Pass,
            (true, Some(Mark::Fail)) => Cell::Fail,
            (true, Some(Mark::Compiles)) => Cell::Compiles,
            (true, None) => Cell::Unchecked,
        }
    }

    /// (the mark, its colour, what it means in the legend)
    fn looks(self) -> (&'static str, Option<AnsiColor>, &'static str) {
        match self {
            Cell::Pass => ("✔ passes", Some(AnsiColor::Green), "your last check passed"),
            Cell::Fail => ("✘ fails", Some(AnsiColor::Red), "it failed"),
            Cell::Compiles => (
                "compiles",
                Some(AnsiColor::Yellow),
                "compiled, not run (no NVIDIA GPU here)",
            ),
            Cell::Unchecked => ("·", None, "not checked yet"),
            Cell::NoKernel => ("–", None, "no kernel in that language"),
        }
    }
}

/// One line under the table: every mark it can show, and the tips column.
fn legend() -> String {
    let marks: Vec<String> = Cell::ALL
        .iter()
        .map(|c| {
            let (mark, _, meaning) = c.looks();
            // A word is followed by a colon; a lone symbol reads without one.
            let colon = if mark.chars().any(char::is_alphabetic) {
                ":"
            } else {
                ""
            };
            format!("{mark}{colon} {meaning}")
        })
        .collect();
    format!("{}; tips: shown/all", marks.join("; "))
}

/// `runner progress`: which puzzles pass, in which language.
fn progress(learner: &Learner) -> Result<ExitCode> {
    let progress = learner.progress.load()?;
    let cell = |p: &Puzzle, lang: Lang| -> (String, usize) {
        let (text, colour, _) =
            Cell::of(p.kernel(lang).is_some(), progress.mark(p.id(), lang)).looks();
        let width = text.chars().count();
        let styled = colour.map_or(text.to_string(), |c| bold(c, text));
        (styled, width)
    };
    let pad = |(text, width): (String, usize), to: usize| {
        format!("{text}{}", " ".repeat(to.saturating_sub(width)))
    };
    let order = learning_order(&learner.book);
    // Wide enough for the longest id, so every row lines up.
    let id_width = order
        .iter()
        .map(|p| p.id().len())
        .max()
        .unwrap_or(0)
        .max(22);
    let cell_width = Cell::ALL
        .iter()
        .map(|c| c.looks().0.chars().count())
        .max()
        .unwrap_or(0)
        .max("CUDA C".len());
    let width = width();
    // The title comes last, so a long one wraps under itself instead of being cut.
    let title_at = id_width + 1 + cell_width + 1 + cell_width + 1 + TIPS + 2;
    let mut text = format!(
        "{}\n",
        dim(&format!(
            "{:<id_width$} {:<cell_width$} {:<cell_width$} {:>TIPS$}  title",
            "puzzle", "WGSL", "CUDA C", "tips"
        ))
    );
    for p in &order {
        let hints = p.spec.raw.hints.len();
        let row = format!(
            "{:<id_width$} {} {} {:>TIPS$}  ",
            p.id(),
            pad(cell(p, Lang::Wgsl), cell_width),
            pad(cell(p, Lang::Cuda), cell_width),
            format!("{}/{hints}", progress.hints_shown(p.id())),
        );
        text.push_str(&row);
        text.push_str(&title_lines(p.title(), title_at, width));
    }
    for line in fit(&legend(), width).lines() {
        let _ = writeln!(text, "{}", dim(line));
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

/// Columns of the tips column ("10/10").
const TIPS: usize = 5;

/// A puzzle's title from column `at` of a `width`-column line, wrapped under
/// itself; where too little room is left, on the next line instead.
fn title_lines(title: &str, at: usize, width: usize) -> String {
    const ROOM: usize = 16;
    let (room, first_prefix, prefix) = if width >= at + ROOM {
        (width - at, String::new(), " ".repeat(at))
    } else {
        (width - 2, "\n  ".to_string(), "  ".to_string())
    };
    let options = textwrap::Options::new(room).break_words(false);
    let lines = textwrap::wrap(title, options);
    let mut out = first_prefix;
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push_str(&prefix);
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whatever a cell can show, the legend explains: every kernel state
    /// (none, or each verdict a check records) gives a mark named in it.
    #[test]
    fn the_legend_names_every_mark_the_table_can_show() {
        let legend = legend();
        assert!(!legend.contains('\n'), "one line: {legend}");
        let marks = [
            None,
            Some(Mark::Pass),
            Some(Mark::Fail),
            Some(Mark::Compiles),
        ];
        let mut seen = Vec::new();
        for has_kernel in [true, false] {
            for mark in marks {
                let cell = Cell::of(has_kernel, mark);
                let (text, _, meaning) = cell.looks();
                assert!(
                    legend.contains(&format!("{text}: {meaning}"))
                        || legend.contains(&format!("{text} {meaning}")),
                    "{cell:?} ({text:?}) is not explained in: {legend}"
                );
                seen.push(cell);
            }
        }
        for cell in Cell::ALL {
            assert!(
                seen.contains(&cell),
                "{cell:?} can never be shown, yet is explained"
            );
        }
        assert!(legend.contains("tips: "), "{legend}");
    }
}
