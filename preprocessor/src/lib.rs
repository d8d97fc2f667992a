//! `mdbook-puzzles`: runs each chapter's puzzles and splices the real results
//! into the page.
//!
//! For every chapter: read its source under `src/` (so kernel lines point at
//! their files), run each puzzle's skeleton and solution through `runner`,
//! then replace the blocks in the chapter mdBook hands over (already past the
//! `links` preprocessor) by byte range, last block first so earlier ranges
//! stay valid. Nothing is written under `src/`. Math is rendered to MathML
//! first ([`math`]), so pages need no MathJax.
//!
//! Chapters are processed in parallel, one worker per CPU, and every run goes
//! through the result cache (`runner::run::cache`), so a warm build runs
//! nothing and editing one chapter under `mdbook serve` re-runs only what
//! changed.

pub mod config;
pub mod math;
pub mod memo;
pub mod playground;
pub mod precision;
pub mod progress;
pub mod render;
pub mod roofline;

use anyhow::{Context, Result, bail};
use config::{Config, OnFailure};
use mdbook_preprocessor::PreprocessorContext;
use mdbook_preprocessor::book::{Book, BookItem};
use puzzle_core::chapter::extract::{self, BlockKind};
use puzzle_core::chapter::puzzle::{Puzzle, chapter_puzzles};
use puzzle_core::check::cases::Case;
use puzzle_core::check::execute::Settings;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::run::backend::BackendKind;
use puzzle_core::source::diag::{Located, display_path};
use puzzle_core::spec::finding::Finding;
use runner::book::load::BookFiles;
use runner::perf::baseline::{self, Baseline};
use runner::perf::record::schema::Recording;
use runner::perf::record::{self, store};
use runner::run::cache::ResultCache;
use runner::run::runner::Runner;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

pub const NAME: &str = "puzzles";

/// What every chapter is processed with.
pub struct Session {
    pub runner: Runner,
    pub on_failure: OnFailure,
    /// GPU results recorded by `runner record` (results/*.json): set
    /// through [`Session::set_recordings`], which forgets their roofs.
    recordings: Vec<Recording>,
    /// Vendor libraries timed on the same GPUs (results/baselines/*.json).
    pub baselines: Vec<Baseline>,
    /// How the number formats rounded there (results/precision/*.json).
    pub precision: Vec<precision::Measured>,
    /// The book's root: roofline blocks name puzzles of any chapter.
    pub root: PathBuf,
    book: std::sync::OnceLock<Result<puzzle_core::chapter::book::Book, Vec<Located>>>,
    /// The files chapters may include: those inside the book.
    pub(crate) files: BookFiles,
    /// Each recording's roofs, worked out once for every roofline block.
    roofs: roofline::roofs::Memo,
    /// Kernel sections checked so far, said on stderr in a long build.
    progress: std::sync::OnceLock<progress::Progress>,
}

impl Session {
    pub fn new(
        runner: Runner,
        on_failure: OnFailure,
        recordings: Vec<Recording>,
        root: PathBuf,
    ) -> Session {
        Session {
            runner,
            on_failure,
            roofs: roofline::roofs::Memo::default(),
            recordings,
            baselines: Vec::new(),
            precision: Vec::new(),
            files: BookFiles::new(&root),
            root,
            book: std::sync::OnceLock::new(),
            progress: std::sync::OnceLock::new(),
        }
    }

    /// Replaces the recordings (a test's made-up GPU), and the roofs worked out from the old ones.
    pub fn set_recordings(&mut self, recordings: Vec<Recording>) {
        self.recordings = recordings;
        self.roofs = roofline::roofs::Memo::default();
    }

    /// Counts a checked kernel section against every section of the book.
    fn checked(&self, puzzle: &Puzzle, lang: Lang) {
        let progress = self.progress.get_or_init(|| {
            let total = self
                .loaded()
                .map_or(0, |book| book.puzzles.iter().map(|p| p.kernels.len()).sum());
            progress::Progress::new(total)
        });
        progress.checked(&format!("{}, {}", puzzle.id(), lang.label()));
    }

    /// The puzzles of the chapter at `file`, in the order it declares them.
    /// From the book, read once for every chapter; where the book does not
    /// load, from the chapter alone, so its own problems are named (and
    /// under `continue` a broken chapter spoils only its own page).
    fn chapter_puzzles(&self, file: &Path) -> Result<Vec<Puzzle>, Vec<Located>> {
        let book_errors = match self.loaded() {
            Ok(book) => {
                let mut found: Vec<Puzzle> = book
                    .puzzles
                    .iter()
                    .filter(|p| p.chapter == file)
                    .cloned()
                    .collect();
                found.sort_by_key(|p| p.spec.origin.first_line);
                return Ok(found);
            }
            Err(errors) => errors,
        };
        // The source, not mdBook's text: its kernel lines still know their files.
        let source = std::fs::read_to_string(file)
            .map_err(|e| vec![Located::new(file, 0, format!("cannot read: {e}"))])?;
        let puzzles = chapter_puzzles(&source, file, &self.files)?;
        // What only the whole book shows (an id another chapter uses too)
        // is this chapter's problem where it is located here.
        let here: Vec<Located> = book_errors
            .iter()
            .filter(|e| e.file == file)
            .cloned()
            .collect();
        if here.is_empty() {
            Ok(puzzles)
        } else {
            Err(here)
        }
    }

    /// Every puzzle of the book, loaded once, or every problem that stops it loading.
    fn loaded(&self) -> Result<&puzzle_core::chapter::book::Book, &Vec<Located>> {
        self.book
            .get_or_init(|| runner::book::load::load_with(&self.root, &self.files))
            .as_ref()
    }

    /// Every puzzle of the book, or its problems in words.
    fn book(&self) -> Result<&puzzle_core::chapter::book::Book, String> {
        self.loaded().map_err(|errors| {
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        })
    }
}

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
    let (recordings, mut failures) = store::load_all(&ctx.root.join(record::RESULTS_DIR));
    let (baselines, unreadable) = baseline::load_all(&baseline::dir(&ctx.root));
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

    // Round-robin over the workers: each owns its chapters, so no locking of pages.
    let workers = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut shares: Vec<Vec<(&mut String, PathBuf)>> = (0..workers).map(|_| Vec::new()).collect();
    for (i, chapter) in chapters.into_iter().enumerate() {
        shares[i % workers].push(chapter);
    }
    let failures = Mutex::new(failures);
    let first_error: Mutex<Option<anyhow::Error>> = Mutex::new(None);
    std::thread::scope(|scope| {
        for share in shares {
            let (session, failures, first_error) = (&session, &failures, &first_error);
            scope.spawn(move || {
                for (content, file) in share {
                    let result = math::render(content)
                        .map_err(|e| anyhow::anyhow!("{}: {e}", file.display()))
                        .and_then(|with_math| process_chapter(&with_math, &file, session));
                    match result {
                        Ok((new, mut problems)) => {
                            *content = new;
                            lock(failures).append(&mut problems);
                        }
                        Err(e) => {
                            lock(first_error).get_or_insert(e);
                            return;
                        }
                    }
                }
            });
        }
    });
    if let Some(e) = lock(&first_error).take() {
        return Err(e);
    }
    let warnings = std::mem::take(&mut *lock(&failures));
    let mut made_from = Vec::new();
    memo::stamps_under(&src, &mut made_from);
    made_from.push(memo::Stamp::of(&ctx.root.join("book.toml")));
    memo::stamps_under(&ctx.root.join(record::RESULTS_DIR), &mut made_from);
    memo::stamps_under(&baseline::dir(&ctx.root), &mut made_from);
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
                    Ok(text) => text,
                    Err(problem) => {
                        let problem = format!("{}: {problem}", file.display());
                        if session.on_failure == OnFailure::Bail {
                            bail!("{problem}");
                        }
                        problems.push(problem.clone());
                        render::failure(&problem)
                    }
                }
            }
            BlockKind::Precision => match precision::render(&block.body, &session.precision) {
                Ok(text) => text,
                Err(problem) => {
                    let problem = format!("{}: {problem}", file.display());
                    if session.on_failure == OnFailure::Bail {
                        bail!("{problem}");
                    }
                    problems.push(problem.clone());
                    render::failure(&problem)
                }
            },
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
    let mut out = content.to_string();
    for (range, text) in replacements.into_iter().rev() {
        out.replace_range(range, &text);
    }
    if !problems.is_empty() {
        out = format!("{}{out}", render::page_banner(problems.len()));
    }
    Ok((out, problems))
}

/// Runs skeleton and solution and renders them with any recorded GPU results.
/// Also returns the problem, if any: a solution that does not pass, or a
/// skeleton that does not fail (a backend missing here is not a problem: the
/// page says so).
fn kernel_section(puzzle: &Puzzle, lang: Lang, session: &Session) -> (String, Option<String>) {
    let run = |variant| session.runner.run(puzzle, lang, variant);
    let runs = (run(Variant::Skeleton), run(Variant::Solution));
    session.checked(puzzle, lang);
    let (skeleton, solution) = match runs {
        (Ok(skeleton), Ok(solution)) => (skeleton, solution),
        (Err(e), _) | (_, Err(e)) => return (String::new(), Some(e.to_string())),
    };
    // At the kernel's first line: its block in the chapter, or its file under kernels/.
    let place = puzzle
        .kernel(lang)
        .and_then(|k| k.source.origin(1))
        .map_or_else(
            || display_path(&puzzle.chapter),
            |o| format!("{}:{}", display_path(&o.file), o.line),
        );
    let describe = |r: &RunReport| format!("{place}:\n{}", r.to_text());
    let (label, id) = (lang.label(), puzzle.id());
    if let Some(bug) = puzzle.spec.raw.bug {
        let (given, problem) = given_with_bug(puzzle, lang, bug, skeleton, session);
        let problem = problem.or_else(|| {
            (!solution_passes(&solution)).then(|| {
                format!(
                    "the {label} solution of `{id}` does not pass: {}",
                    describe(&solution)
                )
            })
        });
        return kernel_page(puzzle, lang, session, (given, solution), problem);
    }
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
    kernel_page(puzzle, lang, session, (skeleton, solution), problem)
}

/// A solution passes, or could not be run here (the page says so).
fn solution_passes(solution: &RunReport) -> bool {
    matches!(
        solution.status,
        Status::Pass | Status::Compiled | Status::Unavailable
    )
}

/// The run the page shows of a debugging case's kernel as given, and the
/// problem with it, if any. On the CPU checker (WGSL) it must show the
/// stated bug, whatever a GPU made of it; where the default backend's run
/// does not show it (a GPU on which a race happens to pass), the checker's
/// run is the one shown. A CUDA kernel as given must compile and run; the
/// checker cannot read it.
fn given_with_bug(
    puzzle: &Puzzle,
    lang: Lang,
    bug: Finding,
    run: RunReport,
    session: &Session,
) -> (RunReport, Option<String>) {
    let (label, id) = (lang.label(), puzzle.id());
    let must_show = |report: &RunReport| {
        format!(
            "the {label} kernel as given of `{id}` must show {bug} (its `bug: {}`), but {}:\n{}",
            bug.name(),
            match report.findings().as_slice() {
                [] => format!("it gives {}", report.status.word()),
                found => format!(
                    "the checker finds {}",
                    found
                        .iter()
                        .map(|f| f.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            },
            report.to_text()
        )
    };
    if lang == Lang::Cuda {
        // A kernel given with a hang ends in a time-out, which is its bug.
        let hung = bug == Finding::Hang && run.findings().contains(&bug);
        let problem =
            (matches!(run.status, Status::CompileError | Status::Error) && !hung).then(|| {
                format!(
                    "the CUDA kernel as given of `{id}` must compile and run:\n{}",
                    run.to_text()
                )
            });
        return (run, problem);
    }
    if run.findings().contains(&bug) {
        return (run, None);
    }
    let source = puzzle
        .kernel(lang)
        .expect("kernel present: the block names it")
        .skeleton();
    match session.runner.run_on(
        BackendKind::Sim,
        puzzle,
        Variant::Skeleton,
        &source,
        &Case::teaching(),
    ) {
        Ok(checked) if checked.findings().contains(&bug) => (checked, None),
        Ok(checked) => {
            let problem = must_show(&checked);
            (checked, Some(problem))
        }
        Err(e) => (run, Some(e.to_string())),
    }
}

/// The kernel's section of the page, from its two runs.
fn kernel_page(
    puzzle: &Puzzle,
    lang: Lang,
    session: &Session,
    (skeleton, solution): (RunReport, RunReport),
    problem: Option<String>,
) -> (String, Option<String>) {
    let kernel = puzzle
        .kernel(lang)
        .expect("kernel present: the block names it");
    let file = kernel
        .source
        .main_file()
        .map(display_relative)
        .unwrap_or_default();
    let copy = format!(
        "{}/{}/{}",
        runner::learner::workspace::DIR,
        puzzle.id(),
        runner::learner::workspace::file_name(puzzle, lang)
    );
    let (skeleton_code, solution_code) = (kernel.skeleton().text, kernel.solution().text);
    let bug = puzzle.spec.raw.bug;
    let shown = |code, local, variant| render::Shown {
        code,
        local,
        recorded: store::lookup(&session.recordings, puzzle, lang, variant),
        // A skeleton with a gap does next to nothing: only a kernel given
        // with a bug has a picture worth drawing.
        diagram: (variant == Variant::Solution || bug.is_some())
            .then(|| access_diagram(puzzle, lang, variant, session))
            .flatten(),
    };
    // Shown inside the section whenever the build goes on past it.
    let shown_problem = problem.as_deref().map(|p| match p.strip_prefix("the ") {
        Some(rest) => format!("The {rest}"),
        None => p.to_string(),
    });
    let text = render::kernel_block(
        lang,
        render::KernelFiles {
            solution: &file,
            copy: &copy,
            puzzle: puzzle.id(),
            bug,
        },
        &kernel.hint,
        shown(&skeleton_code, &skeleton, Variant::Skeleton),
        shown(&solution_code, &solution, Variant::Solution),
        shown_problem.as_deref(),
        &playground::beside_the_skeleton(puzzle, lang, session),
    );
    (text, problem)
}

/// Teaching sizes up to this many elements in all get the solution's
/// access diagram on the page; larger ones (Part III's) would make pages and
/// the cache heavy, and are drawn on request (`runner check --draw`).
const DIAGRAM_ELEMENTS: usize = 4096;

/// A WGSL kernel's access diagram (the solution, or a debugging case's
/// kernel as given), from a traced run on the CPU checker, or why there is
/// none; nothing for CUDA (its page shows the WGSL kernel's; `runner check
/// --lang cuda --draw` draws a CUDA one on the CUDA checker).
fn access_diagram(
    puzzle: &Puzzle,
    lang: Lang,
    variant: Variant,
    session: &Session,
) -> Option<String> {
    if lang != Lang::Wgsl {
        return None;
    }
    let spec = puzzle_core::check::execute::resolve(
        &puzzle.spec,
        &puzzle_core::check::cases::Case::teaching(),
        session.runner.settings.memory,
    )
    .ok()?;
    let elements = spec.elements();
    if elements > DIAGRAM_ELEMENTS {
        return Some(format!(
            "<p class=\"puzzle-diagram-note\">No access diagram here: the teaching size has {} \
             elements. <code>runner check {} --lang wgsl --draw</code> draws yours.</p>\n",
            puzzle_core::quantity::thousands(elements as u64),
            puzzle.id()
        ));
    }
    let source = puzzle.kernel(lang)?.variant(variant);
    let report = session.runner.traced(puzzle, lang, variant, &source).ok()?;
    let what = match variant {
        Variant::Skeleton => "the kernel as given",
        _ => "this solution",
    };
    report
        .accesses
        .as_deref()
        .map(|a| render::diagram(a, what, puzzle.id(), puzzle.spec.raw.global_access.as_ref()))
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
