//! A chapter's page: each of its blocks (puzzle, kernel, roofline,
//! precision, bus, overlap) replaced by what the build made of it, and the problems found
//! on the way (under `continue`, shown on the page; under `bail`, an error).
//! A kernel block's section, its runs and their pictures, is `kernel.rs`'s.

mod kernel;

use crate::config::OnFailure;
use crate::session::Session;
use crate::{bus, overlap, precision, render, roofline};
use anyhow::{Result, bail};
use puzzle_core::chapter::extract::{self, BlockKind};
use std::path::Path;

/// Replaces the puzzle and kernel blocks of one chapter. `content` is the
/// chapter after `links`; `file` is its source. Returns the new text and, under
/// `continue`, the problems rendered into it; under `bail` a problem is an error.
pub fn process_chapter(
    content: &str,
    file: &Path,
    session: &Session,
) -> Result<(String, Vec<String>)> {
    let blocks = extract::blocks(content, file).map_err(|e| anyhow::anyhow!("{e}"))?;
    if blocks.is_empty() {
        return Ok((content.to_string(), vec![]));
    }
    let mut problems = Vec::new();
    let puzzles = match session.chapter_puzzles(file) {
        Ok(p) => p,
        Err(errors) => {
            let message: Vec<String> = errors.iter().map(ToString::to_string).collect();
            let message = message.join("\n");
            if session.on_failure == OnFailure::Bail {
                bail!("{message}");
            }
            problems.push(message.clone());
            // The prose as written, with the problem on top; no block shown
            // raw (a kernel block holds its solution and its markers).
            let mut page = content.to_string();
            for block in blocks.iter().rev() {
                page.replace_range(block.range.clone(), &render::withheld(&block.kind));
            }
            return Ok((format!("{}\n{page}", render::failure(&message)), problems));
        }
    };

    if blocks
        .iter()
        .filter(|b| b.kind == BlockKind::Puzzle)
        .count()
        != puzzles.len()
    {
        bail!(
            "{}: the chapter mdBook passed has a different number of puzzle blocks than its source",
            file.display()
        );
    }
    // Puzzle blocks pair with the source's puzzles in order (`links` can move lines, not blocks).
    let mut next_puzzle = puzzles.iter();
    let mut replacements = Vec::new();
    // Every roofline block's "how this was measured", folded once after the
    // last of them, and the index of that block's replacement.
    let mut measured = Vec::new();
    let mut last_roofline = None;
    for block in &blocks {
        let text = match &block.kind {
            BlockKind::Puzzle => {
                let p = next_puzzle.next().expect("counted above");
                let first = std::ptr::eq(p, &puzzles[0]);
                match p.spec.resolve(&Default::default()) {
                    Ok(spec) => render::puzzle_block(&spec, &p.spec.raw.hints, first),
                    Err(e) => render::failure(&e.to_string()),
                }
            }
            BlockKind::Roofline => {
                match session.book().and_then(|book| {
                    roofline::render(
                        &block.body,
                        book,
                        &session.recordings,
                        &session.baselines,
                        &session.roofs,
                    )
                }) {
                    Ok(rendered) => {
                        last_roofline = Some(replacements.len());
                        let shown = rendered.shown.clone();
                        measured.push(rendered);
                        shown
                    }
                    Err(problem) => failed_block(session, file, problem, &mut problems)?,
                }
            }
            BlockKind::Bus => match session.book().and_then(|book| {
                bus::render(&block.body, book, &session.recordings, &session.baselines)
            }) {
                Ok(text) => text,
                Err(problem) => failed_block(session, file, problem, &mut problems)?,
            },
            BlockKind::Overlap => match session
                .book()
                .and_then(|book| overlap::render(&block.body, book, &session.recordings))
            {
                Ok(text) => text,
                Err(problem) => failed_block(session, file, problem, &mut problems)?,
            },
            BlockKind::Precision => match precision::render(&block.body, &session.precision) {
                Ok(text) => text,
                Err(problem) => failed_block(session, file, problem, &mut problems)?,
            },
            BlockKind::Kernel { lang, puzzle } => {
                let Some(p) = puzzles.iter().find(|p| p.id() == puzzle) else {
                    continue;
                };
                match kernel::section(p, *lang, session) {
                    (text, None) => text,
                    (text, Some(problem)) => {
                        if session.on_failure == OnFailure::Bail {
                            bail!("{problem}");
                        }
                        // The box is inside the kernel's own section
                        // (`text`), unless nothing could run to make one.
                        let shown = if text.is_empty() {
                            render::failure(&problem)
                        } else {
                            text
                        };
                        problems.push(problem);
                        shown
                    }
                }
            }
        };
        replacements.push((block.range.clone(), text));
    }
    if let Some(last) = last_roofline {
        replacements[last]
            .1
            .push_str(&roofline::measured_how(&measured));
    }
    let mut out = content.to_string();
    for (range, text) in replacements.into_iter().rev() {
        out.replace_range(range, &text);
    }
    let mut out = crate::prose::launch_bound_once(&crate::prose::diagrams_once(
        &crate::prose::cuda_note_once(&out),
    ));
    if !problems.is_empty() {
        out = format!("{}{out}", render::page_banner(problems.len()));
    }
    Ok((out, problems))
}

/// A roofline, bus, overlap or precision block that could not be drawn: the build stops
/// (`bail`), or the page says why in the block's place and the build goes on
/// with the problem listed.
fn failed_block(
    session: &Session,
    file: &Path,
    problem: impl std::fmt::Display,
    problems: &mut Vec<String>,
) -> Result<String> {
    let problem = format!("{}: {problem}", file.display());
    if session.on_failure == OnFailure::Bail {
        bail!("{problem}");
    }
    problems.push(problem.clone());
    Ok(render::failure(&problem))
}
