//! `mdbook-puzzles`: runs each chapter's puzzles and splices the real results
//! into the page.
//!
//! For every chapter: read its source under `src/` (so kernel lines point at
//! their files), run each puzzle's skeleton and solution through `runner`,
//! then replace the blocks in the chapter mdBook hands over (already past the
//! `links` preprocessor) by byte range, last block first so earlier ranges
//! stay valid. Nothing is written under `src/`.

pub mod config;
pub mod render;

use anyhow::{Context, Result, bail};
use config::{Config, OnFailure};
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem};
use runner::book::{Puzzle, chapter_puzzles};
use runner::extract::{self, BlockKind};
use runner::kernel::Variant;
use runner::report::{RunReport, Status};
use runner::{Runner, Settings};
use std::path::Path;

pub const NAME: &str = "puzzles";

/// Processes every chapter of `book`.
pub fn run(ctx: &PreprocessorContext, mut book: Book) -> Result<Book> {
    let config: Config = ctx
        .config
        .get(&format!("preprocessor.{NAME}"))
        .context("reading [preprocessor.puzzles] in book.toml")?
        .unwrap_or_default();
    let runner = Runner::new(Settings {
        timing_samples: config.timing_samples,
        ..Settings::default()
    });
    let src = ctx.root.join(&ctx.config.book.src);
    let mut failures = Vec::new();
    for_each_chapter(&mut book.items, &mut |content, source_path| {
        let Some(source_path) = source_path else {
            return Ok(());
        };
        let file = src.join(source_path);
        let (new, mut problems) = process_chapter(content, &file, &runner, config.on_failure)?;
        *content = new;
        failures.append(&mut problems);
        Ok(())
    })?;
    for failure in &failures {
        eprintln!("warning (mdbook-puzzles): {failure}");
    }
    Ok(book)
}

fn for_each_chapter(
    items: &mut [BookItem],
    f: &mut dyn FnMut(&mut String, Option<&Path>) -> Result<()>,
) -> Result<()> {
    for item in items {
        if let BookItem::Chapter(chapter) = item {
            f(&mut chapter.content, chapter.source_path.as_deref())?;
            for_each_chapter(&mut chapter.sub_items, f)?;
        }
    }
    Ok(())
}

/// Replaces the puzzle and kernel blocks of one chapter. `content` is the
/// chapter after `links`; `file` is its source. Returns the new text and, under
/// `continue`, the problems rendered into it; under `bail` a problem is an error.
pub fn process_chapter(
    content: &str,
    file: &Path,
    runner: &Runner,
    on_failure: OnFailure,
) -> Result<(String, Vec<String>)> {
    let blocks = extract::blocks(content, file).map_err(|e| anyhow::anyhow!("{e}"))?;
    if blocks.is_empty() {
        return Ok((content.to_string(), vec![]));
    }
    let mut problems = Vec::new();
    // The source, not `content`: its kernel lines still know their files.
    let source =
        std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let puzzles = match chapter_puzzles(&source, file) {
        Ok(p) => p,
        Err(errors) => {
            let message: Vec<String> = errors.iter().map(ToString::to_string).collect();
            let message = message.join("\n");
            if on_failure == OnFailure::Bail {
                bail!("{message}");
            }
            problems.push(message.clone());
            // Leave the chapter as written, with the problem on top.
            return Ok((
                format!("{}\n{content}", render::failure(&message)),
                problems,
            ));
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
    for block in &blocks {
        let text = match &block.kind {
            BlockKind::Puzzle => {
                let p = next_puzzle.next().expect("counted above");
                match p.spec.resolve(&Default::default()) {
                    Ok(spec) => render::puzzle_block(&spec, &p.spec.raw.hints),
                    Err(e) => render::failure(&e.to_string()),
                }
            }
            BlockKind::Kernel { lang, puzzle } => {
                let Some(p) = puzzles.iter().find(|p| p.id() == puzzle) else {
                    continue;
                };
                match kernel_section(p, *lang, runner) {
                    Ok(text) => text,
                    Err(problem) => {
                        if on_failure == OnFailure::Bail {
                            bail!("{problem}");
                        }
                        problems.push(problem.clone());
                        format!(
                            "{}{}",
                            render::failure(&problem),
                            kernel_section_anyway(p, *lang, runner)
                        )
                    }
                }
            }
        };
        replacements.push((block.range.clone(), text));
    }
    let mut out = content.to_string();
    for (range, text) in replacements.into_iter().rev() {
        out.replace_range(range, &text);
    }
    Ok((out, problems))
}

/// Runs skeleton and solution; a solution that does not pass, or a skeleton
/// that does, is a problem (a backend missing here is not: the page says so).
fn kernel_section(
    puzzle: &Puzzle,
    lang: runner::Lang,
    runner: &Runner,
) -> std::result::Result<String, String> {
    let (skeleton, solution) = run_both(puzzle, lang, runner)?;
    let describe = |r: &RunReport| format!("{}:\n{}", puzzle.chapter.display(), r.to_text());
    match solution.status {
        Status::Pass | Status::Compiled | Status::Unavailable => {}
        _ => {
            return Err(format!(
                "the {} solution of `{}` does not pass: {}",
                lang.label(),
                puzzle.id(),
                describe(&solution)
            ));
        }
    }
    match skeleton.status {
        Status::Fail | Status::Compiled | Status::Unavailable => {}
        Status::Pass => {
            return Err(format!(
                "the {} skeleton of `{}` already passes: the marked region gives the answer away",
                lang.label(),
                puzzle.id()
            ));
        }
        _ => {
            return Err(format!(
                "the {} skeleton of `{}` must compile and fail: {}",
                lang.label(),
                puzzle.id(),
                describe(&skeleton)
            ));
        }
    }
    Ok(section(puzzle, lang, &skeleton, &solution))
}

/// Under `continue`, the section is still shown, with whatever happened.
fn kernel_section_anyway(puzzle: &Puzzle, lang: runner::Lang, runner: &Runner) -> String {
    match run_both(puzzle, lang, runner) {
        Ok((skeleton, solution)) => section(puzzle, lang, &skeleton, &solution),
        Err(e) => render::failure(&e),
    }
}

fn run_both(
    puzzle: &Puzzle,
    lang: runner::Lang,
    runner: &Runner,
) -> std::result::Result<(RunReport, RunReport), String> {
    let run = |variant| runner.run(puzzle, lang, variant).map_err(|e| e.to_string());
    Ok((run(Variant::Skeleton)?, run(Variant::Solution)?))
}

fn section(
    puzzle: &Puzzle,
    lang: runner::Lang,
    skeleton: &RunReport,
    solution: &RunReport,
) -> String {
    let kernel = puzzle
        .kernel(lang)
        .expect("kernel present: the block names it");
    let file = kernel
        .source
        .main_file()
        .map(display_relative)
        .unwrap_or_default();
    render::kernel_block(
        lang,
        &file,
        &kernel.hint,
        (&kernel.skeleton().text, skeleton),
        (&kernel.solution().text, solution),
    )
}

/// `kernels/p01_map/add_10.cu` rather than an absolute path.
fn display_relative(path: &Path) -> String {
    let parts: Vec<_> = path.components().collect();
    match parts.iter().rposition(|c| c.as_os_str() == "kernels") {
        Some(i) => parts[i..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/"),
        None => path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_default(),
    }
}
