//! A kernel block's section of its page: the skeleton and the solution run
//! (a debugging case's kernel as given in the skeleton's place), the problem
//! with them if any, their recorded GPU results, the access diagram of a
//! WGSL kernel, and the playground or note beside the skeleton.

use crate::session::Session;
use crate::{playground, render};
use puzzle_core::assess::cases::Case;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::kernel::includes;
use puzzle_core::lang::Lang;
use puzzle_core::source::diag::display_path;
use puzzle_core::spec::finding::Finding;
use runner::perf::record;
use std::path::Path;

/// Runs skeleton and solution and renders them with any recorded GPU results.
/// Also returns the problem, if any: a solution that does not pass, or a
/// skeleton that does not fail (a backend missing here is not a problem: the
/// page says so).
pub(super) fn section(puzzle: &Puzzle, lang: Lang, session: &Session) -> (String, Option<String>) {
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
    let whole = puzzle.kernel(lang).is_some_and(|k| k.is_given_whole());
    let problem = match (solution.status, skeleton.status) {
        // A kernel given whole is its own skeleton: it passes as the solution does.
        (Status::Pass | Status::Compiled | Status::Unavailable, _) if whole => None,
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
        runner::learner::WORKSPACE_DIR,
        puzzle.id(),
        runner::learner::file_name(puzzle, lang)
    );
    // Each kernel's own code: its headers' lines stay behind their
    // `#include` lines (the book shows the headers once, on their own).
    let (skeleton_code, solution_code) = (
        includes::folded(&kernel.skeleton()),
        includes::folded(&kernel.solution()),
    );
    let bug = puzzle.spec.raw.bug;
    // The launches alone: sized, with no buffer filled and no reference run.
    let launches = puzzle
        .spec
        .sized(&Default::default())
        .map_or(1, |spec| spec.launches_in_a_row());
    let shown = |code, local, variant| render::Shown {
        code,
        local,
        recorded: record::lookup(&session.recordings, puzzle, lang, variant),
        // A skeleton with a gap does next to nothing: only a kernel given
        // with a bug has a picture worth drawing.
        diagram: (variant == Variant::Solution || bug.is_some())
            .then(|| access_diagram(puzzle, lang, variant, session))
            .flatten(),
        launches,
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
            whole: kernel.is_given_whole(),
        },
        &kernel.hint,
        shown(&skeleton_code, &skeleton, Variant::Skeleton),
        shown(&solution_code, &solution, Variant::Solution),
        shown_problem.as_deref(),
        &playground::beside_the_skeleton(puzzle, lang, &session.root, &session.files),
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
    let spec = puzzle_core::assess::execute::resolve(
        &puzzle.spec,
        &puzzle_core::assess::cases::Case::teaching(),
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

/// `kernels/fundamentals/p01_map/add_10.cu` rather than an absolute path.
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
