//! `runner check`, `hint`, `progress` and `reset`: one command each, over
//! the learner's workspace and progress file.

use super::term::{self, bold, dim};
use super::{Learner, best_lang};
use anstyle::AnsiColor;
use anyhow::{Result, bail};
use runner::diag::display_path;
use runner::kernel::Lang;
use runner::learner::check::{CheckReport, Verdict};
use runner::learner::order::{learning_order, next_unsolved};
use runner::learner::render::render;
use runner::learner::{Mark, check};
use runner::{Puzzle, Runner};
use std::fmt::Write;
use std::process::ExitCode;

/// Checks one puzzle's learner's file, records the verdict, and says what comes next.
pub fn check_one(
    learner: &Learner,
    runner: &Runner,
    puzzle: &Puzzle,
    lang: Option<Lang>,
) -> Result<CheckReport> {
    let lang = match lang {
        Some(l) => l,
        None => best_lang(learner, runner, puzzle)?,
    };
    if let Err(e) = puzzle.require_kernel(lang) {
        bail!("{}", e.message);
    }
    let file = learner.workspace.file(puzzle, lang);
    let mut report = check(runner, puzzle, lang, &file);
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

/// `runner check PUZZLE`: the report as text or JSON; the exit status says the verdict.
pub fn check_command(
    learner: &Learner,
    runner: &Runner,
    puzzle: &str,
    lang: Option<Lang>,
    json: bool,
) -> Result<ExitCode> {
    let puzzle = learner.puzzle(puzzle)?;
    let report = check_one(learner, runner, puzzle, lang)?;
    if json {
        println!("{}", serde_json::to_string_pretty(&report)?);
    } else {
        term::print(&render(&report));
    }
    Ok(ExitCode::from(report.verdict.exit_code()))
}

/// `runner check --all`: every puzzle in reading order, with a progress bar
/// on a terminal, then one line per puzzle (or a JSON array).
pub fn check_all(
    learner: &Learner,
    runner: &Runner,
    lang: Option<Lang>,
    json: bool,
) -> Result<ExitCode> {
    let order = learning_order(&learner.book);
    let chosen: Vec<&Puzzle> = order
        .into_iter()
        .filter(|p| lang.is_none_or(|l| p.kernel(l).is_some()))
        .collect();
    let bar = indicatif::ProgressBar::new(chosen.len() as u64);
    bar.set_style(
        indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let mut reports = Vec::new();
    for puzzle in chosen {
        bar.set_message(puzzle.id().to_string());
        reports.push(check_one(learner, runner, puzzle, lang)?);
        bar.inc(1);
    }
    bar.finish_and_clear();
    if json {
        println!("{}", serde_json::to_string_pretty(&reports)?);
    } else {
        let mut text = String::new();
        for r in &reports {
            let _ = writeln!(
                text,
                "{} {:<22} {:<6} {}",
                verdict_mark(r.verdict),
                r.puzzle,
                r.lang.to_string(),
                r.summary
            );
        }
        let solved = reports.iter().filter(|r| r.passed()).count();
        let _ = writeln!(text, "{solved} of {} pass", reports.len());
        term::print(&text);
    }
    let code = if reports.iter().all(CheckReport::passed) {
        0
    } else if reports.iter().any(|r| r.verdict.exit_code() == 1) {
        1
    } else {
        2
    };
    Ok(ExitCode::from(code))
}

fn verdict_mark(verdict: Verdict) -> String {
    match verdict {
        Verdict::Pass => bold(AnsiColor::Green, "✔"),
        Verdict::CompiledOnly | Verdict::Unavailable => bold(AnsiColor::Yellow, "–"),
        _ => bold(AnsiColor::Red, "✘"),
    }
}

/// `runner hint PUZZLE`: one more tip each time.
pub fn hint(learner: &Learner, id: &str) -> Result<ExitCode> {
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
    let shown = learner
        .progress
        .update(|p| p.reveal_hint(puzzle.id(), hints.len()))
        .map_err(anyhow::Error::msg)?;
    let mut text = format!(
        "Tips for {} ({}), {shown} of {}:\n",
        puzzle.id(),
        puzzle.title(),
        hints.len()
    );
    for (i, tip) in hints.iter().take(shown).enumerate() {
        let line = format!("  {}. {tip}", i + 1);
        let line = if i + 1 == shown {
            bold(AnsiColor::Cyan, &line)
        } else {
            dim(&line)
        };
        let _ = writeln!(text, "{line}");
    }
    if shown < hints.len() {
        let _ = writeln!(
            text,
            "Ask again (`runner hint {}`) for the next tip.",
            puzzle.id()
        );
    } else {
        let _ = writeln!(
            text,
            "That was the last tip. The chapter's collapsed solution shows one way \
             (`runner show {} --solution`).",
            puzzle.id()
        );
    }
    term::print(&text);
    Ok(ExitCode::SUCCESS)
}

/// `runner progress`: which puzzles pass, in which language.
pub fn progress(learner: &Learner) -> Result<ExitCode> {
    let progress = learner.progress.load().map_err(anyhow::Error::msg)?;
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

/// `runner reset PUZZLE`: the skeleton back in the learner's copy (both languages unless one is named).
pub fn reset(learner: &Learner, id: &str, lang: Option<Lang>) -> Result<ExitCode> {
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
        if let Err(e) = learner
            .progress
            .update(|p| p.set_mark(puzzle.id(), l, None))
        {
            eprintln!("warning: progress not saved: {e}");
        }
    }
    Ok(ExitCode::SUCCESS)
}
