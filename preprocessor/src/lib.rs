//! `mdbook-puzzles`: runs each chapter's puzzles and splices the real results
//! into the page.
//!
//! For every chapter: read its source under `src/` (so kernel lines point at
//! their files), run each puzzle's skeleton and solution through `runner`,
//! then replace the blocks in the chapter mdBook hands over (already past the
//! `links` preprocessor) by byte range, last block first so earlier ranges
//! stay valid. Nothing is written under `src/`. Math is rendered to MathML
//! first ([`math`]), so pages need no MathJax.

pub mod config;
pub mod math;
pub mod render;

use anyhow::{Context, Result, bail};
use config::{Config, OnFailure};
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem};
use runner::book::{Puzzle, chapter_puzzles};
use runner::extract::{self, BlockKind};
use runner::kernel::Variant;
use runner::record::{self, Recording};
use runner::report::{RunReport, Status};
use runner::{Runner, Settings};
use std::path::Path;

pub const NAME: &str = "puzzles";

/// What every chapter is processed with.
pub struct Session {
    pub runner: Runner,
    pub on_failure: OnFailure,
    /// GPU results recorded by `runner record` (results/*.json).
    pub recordings: Vec<Recording>,
}

/// Processes every chapter of `book`.
pub fn run(ctx: &PreprocessorContext, mut book: Book) -> Result<Book> {
    let config: Config = ctx
        .config
        .get(&format!("preprocessor.{NAME}"))
        .context("reading [preprocessor.puzzles] in book.toml")?
        .unwrap_or_default();
    let (recordings, mut failures) = record::load_all(&ctx.root.join(record::RESULTS_DIR));
    let session = Session {
        runner: Runner::new(Settings {
            timing_samples: config.timing_samples,
            timeout: std::time::Duration::from_secs(config.timeout_seconds),
        }),
        on_failure: config.on_failure,
        recordings,
    };
    let src = ctx.root.join(&ctx.config.book.src);
    for_each_chapter(&mut book.items, &mut |content, source_path| {
        let Some(source_path) = source_path else {
            return Ok(());
        };
        let file = src.join(source_path);
        let with_math =
            math::render(content).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
        let (new, mut problems) = process_chapter(&with_math, &file, &session)?;
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
    session: &Session,
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
            if session.on_failure == OnFailure::Bail {
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
                match kernel_section(p, *lang, session) {
                    (text, None) => text,
                    (text, Some(problem)) => {
                        if session.on_failure == OnFailure::Bail {
                            bail!("{problem}");
                        }
                        problems.push(problem.clone());
                        format!("{}{text}", render::failure(&problem))
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

/// Runs skeleton and solution and renders them with any recorded GPU results.
/// Also returns the problem, if any: a solution that does not pass, or a
/// skeleton that does not fail (a backend missing here is not a problem: the
/// page says so).
fn kernel_section(
    puzzle: &Puzzle,
    lang: runner::Lang,
    session: &Session,
) -> (String, Option<String>) {
    let run = |variant| session.runner.run(puzzle, lang, variant);
    let (skeleton, solution) = match (run(Variant::Skeleton), run(Variant::Solution)) {
        (Ok(skeleton), Ok(solution)) => (skeleton, solution),
        (Err(e), _) | (_, Err(e)) => return (String::new(), Some(e.to_string())),
    };
    let describe = |r: &RunReport| format!("{}:\n{}", puzzle.chapter.display(), r.to_text());
    let (label, id) = (lang.label(), puzzle.id());
    let problem = match (solution.status, skeleton.status) {
        (
            Status::Pass | Status::Compiled | Status::Unavailable,
            Status::Fail | Status::Compiled | Status::Unavailable,
        ) => None,
        (Status::Pass | Status::Compiled | Status::Unavailable, Status::Pass) => Some(format!(
            "the {label} skeleton of `{id}` already passes: the marked region gives the answer away"
        )),
        (Status::Pass | Status::Compiled | Status::Unavailable, _) => Some(format!(
            "the {label} skeleton of `{id}` must compile and fail: {}",
            describe(&skeleton)
        )),
        _ => Some(format!(
            "the {label} solution of `{id}` does not pass: {}",
            describe(&solution)
        )),
    };
    let kernel = puzzle
        .kernel(lang)
        .expect("kernel present: the block names it");
    let file = kernel
        .source
        .main_file()
        .map(display_relative)
        .unwrap_or_default();
    let (skeleton_code, solution_code) = (kernel.skeleton().text, kernel.solution().text);
    let shown = |code, local, variant| render::Shown {
        code,
        local,
        recorded: record::lookup(&session.recordings, puzzle, lang, variant),
    };
    let text = render::kernel_block(
        lang,
        &file,
        &kernel.hint,
        shown(&skeleton_code, &skeleton, Variant::Skeleton),
        shown(&solution_code, &solution, Variant::Solution),
    );
    (text, problem)
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
