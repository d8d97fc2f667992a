//! `mdbook-puzzles`: runs each chapter's puzzles and splices the real results
//! into the page.
//!
//! For every chapter: read its source under `src/` (so kernel lines point at
//! their files), run each puzzle's skeleton and solution through `runner`,
//! then replace the blocks in the chapter mdBook hands over (already past the
//! `links` preprocessor) by byte range, last block first so earlier ranges
//! stay valid. Nothing is written under `src/`. Math is rendered to MathML
//! first ([`mathml`]), so pages need no MathJax.
//!
//! Chapters are processed in parallel, one worker per CPU, and every run goes
//! through the result cache (`runner::run::ResultCache`), so a warm build runs
//! nothing and editing one chapter under `mdbook serve` re-runs only what
//! changed.
//!
//! This file is the plumbing between mdBook and the pages: the input read,
//! the [`memo`] consulted, the [`Session`] made, the chapters shared out to
//! the workers and the warnings printed. What a page becomes is [`page`]'s.

pub mod build_progress;
pub mod bus;
pub mod config;
pub mod mathml;
pub mod memo;
pub mod overlap;
pub mod page;
pub mod playground;
pub mod precision;
pub mod prose;
#[cfg(test)]
mod recorded_fixtures;
pub mod render;
pub mod roofline;
pub mod session;

pub use page::process_chapter;
pub use session::Session;

use anyhow::{Context, Result};
use config::{Config, OnFailure};
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem};
use puzzle_core::assess::execute::Settings;
use rayon::iter::{IntoParallelIterator, ParallelIterator};
use runner::perf::{baselines_dir, load_baselines, record};
use runner::run::{ResultCache, Runner};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub const NAME: &str = "puzzles";

/// The processed book's JSON for mdBook's `input` (`[context, book]`), with
/// the warnings printed: recalled from the [`memo`] where nothing it was
/// made from changed, else built and kept there.
pub fn run_input(input: &[u8]) -> Result<String> {
    let (ctx, book): (PreprocessorContext, Book) =
        serde_json::from_slice(input).context("reading mdBook's input")?;
    let config = config(&ctx)?;
    let memo = config
        .cache
        .then(|| memo::Memo::new(&ctx.root.join(&config.cache_dir)));
    let key = memo::key(&ctx, &book);
    if let Some((json, warnings)) = memo.as_ref().and_then(|m| m.recall(&key)) {
        warn(&warnings);
        return Ok(json);
    }
    let built = build(&ctx, &config, book)?;
    warn(&built.warnings);
    let json = serde_json::to_string(&built.book).context("writing the book")?;
    if let Some(memo) = memo.filter(|_| built.keepable) {
        memo.keep(&key, built.made_from, built.warnings, &json);
    }
    Ok(json)
}

/// Processes every chapter of `book`, printing the warnings.
pub fn run(ctx: &PreprocessorContext, book: Book) -> Result<Book> {
    let built = build(ctx, &config(ctx)?, book)?;
    warn(&built.warnings);
    Ok(built.book)
}

fn warn(warnings: &[String]) {
    for warning in warnings {
        eprintln!("warning (mdbook-puzzles): {warning}");
    }
}

fn config(ctx: &PreprocessorContext) -> Result<Config> {
    Ok(ctx
        .config
        .get(&format!("preprocessor.{NAME}"))
        .context("reading [preprocessor.puzzles] in book.toml")?
        .unwrap_or_default())
}

/// A processed book, and what the [`memo`] needs to keep it.
struct Built {
    book: Book,
    /// What is wrong on its pages (under `continue`), and unreadable recordings.
    warnings: Vec<String>,
    /// Every file and folder it was made from.
    made_from: Vec<memo::Stamp>,
    /// False when a run could not be cached: the next build should try again.
    keepable: bool,
}

/// Processes every chapter of `book`.
fn build(ctx: &PreprocessorContext, config: &Config, mut book: Book) -> Result<Built> {
    let (recordings, mut failures) = record::load_all(&ctx.root.join(record::RESULTS_DIR));
    let (baselines, unreadable) = load_baselines(&baselines_dir(&ctx.root));
    failures.extend(unreadable);
    let (measured, unreadable) = precision::load_all(&precision::dir(&ctx.root));
    failures.extend(unreadable);
    let settings = Settings {
        timing_samples: config.timing_samples,
        timeout: std::time::Duration::from_secs(config.timeout_seconds),
        ..Settings::default()
    };
    let runner = if config.cache {
        Runner::with_cache(settings, ResultCache::new(ctx.root.join(&config.cache_dir)))
    } else {
        Runner::new(settings)
    };
    // Under `mdbook serve` a failed build leaves the old page in the browser
    // with nothing to say so: there, a failure is shown in the page it is on
    // (and printed), whatever `on-failure` says; `mdbook build` still bails.
    let serving = ctx
        .config
        .get::<String>("output.html.live-reload-endpoint")
        .ok()
        .flatten()
        .is_some();
    let on_failure = if serving {
        OnFailure::Continue
    } else {
        config.on_failure
    };
    let mut session = Session::new(runner, on_failure, recordings, ctx.root.clone());
    session.baselines = baselines;
    session.precision = measured;
    let src = ctx.root.join(&ctx.config.book.src);
    let mut chapters = Vec::new();
    collect_chapters(&mut book.items, &src, &mut chapters);

    // Each chapter to whichever worker is free: each owns its page, so no
    // locking of pages, and the first failure stops the rest.
    let failures = Mutex::new(failures);
    chapters
        .into_par_iter()
        .try_for_each(|(content, file)| -> Result<()> {
            let with_math =
                mathml::render(content).map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))?;
            let (page, mut problems) = process_chapter(&with_math, &file, &session)?;
            *content = prose::highlightable_fences(&page);
            lock(&failures).append(&mut problems);
            Ok(())
        })?;
    let warnings = std::mem::take(&mut *lock(&failures));
    let mut made_from = Vec::new();
    memo::stamps_under(&src, &mut made_from);
    made_from.push(memo::Stamp::of(&ctx.root.join("book.toml")));
    memo::stamps_under(&ctx.root.join(record::RESULTS_DIR), &mut made_from);
    memo::stamps_under(&baselines_dir(&ctx.root), &mut made_from);
    memo::stamps_under(&precision::dir(&ctx.root), &mut made_from);
    made_from.extend(session.files.included().iter().map(|p| memo::Stamp::of(p)));
    Ok(Built {
        book,
        warnings,
        made_from,
        keepable: session.runner.all_cached(),
    })
}

/// A poisoned lock only means another worker panicked; its data is still usable.
fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Every chapter with a source file, as (its content, its path under `src/`).
fn collect_chapters<'a>(
    items: &'a mut [BookItem],
    src: &Path,
    out: &mut Vec<(&'a mut String, PathBuf)>,
) {
    for item in items {
        if let BookItem::Chapter(chapter) = item {
            if let Some(path) = &chapter.source_path {
                out.push((&mut chapter.content, src.join(path)));
            }
            collect_chapters(&mut chapter.sub_items, src, out);
        }
    }
}
