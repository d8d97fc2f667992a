//! Every chapter's puzzles, as one test per puzzle, language, variant and backend.
//!
//! - the solution must pass (wgpu) or compile (CUDA without a GPU);
//! - the skeleton must compile and, where it can run, fail;
//! - a backend that is not here is reported by name as skipped (libtest's
//!   "ignored", with the reason printed), never passed silently;
//! - a language without a kernel needs the spec's `why_no_kernel` reason,
//!   and is then reported as skipped with that reason;
//! - the CPU reference reproduces every expected list the spec writes out
//!   (the seeds' printouts), so the references that judge stress runs are
//!   themselves checked against the seeds.

use libtest_mimic::{Arguments, Failed, Trial};
use runner::expr::Constants;
use runner::kernel::{Lang, Variant};
use runner::{BackendKind, Book, Puzzle, Runner, Settings, Status};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        ..Settings::default()
    })
});

fn main() {
    // A CUDA launch isolated in a child process re-enters here.
    runner::backend::isolate::serve_if_child();
    let args = Arguments::from_args();
    // GPU_PUZZLES_BOOK: where the book is when this binary runs away from its
    // checkout (the GPU machine gets a copy at another path).
    let root = std::env::var_os("GPU_PUZZLES_BOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("workspace root")
                .to_path_buf()
        });
    let book = match Book::load(&root) {
        Ok(book) => Arc::new(book),
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            panic!("the book does not load: {} problem(s) above", errors.len());
        }
    };
    assert!(!book.puzzles.is_empty(), "the book declares no puzzles");

    let mut trials = Vec::new();
    for kind in BackendKind::ALL {
        // Say up front what each backend is, or why its tests are skipped.
        match RUNNER.backend(kind) {
            Ok(b) => eprintln!("backend {kind}: {}", b.device().label()),
            Err(e) => eprintln!("backend {kind}: SKIPPED: {e}"),
        }
    }
    for puzzle in &book.puzzles {
        let id = puzzle.id().to_string();
        let spec = puzzle.spec.clone();
        trials.push(Trial::test(format!("{id}::reference"), move || {
            reference_agrees(&spec)
        }));
        for lang in Lang::ALL {
            let kind = BackendKind::for_lang(lang);
            let name = format!("{}::{lang}", puzzle.id());
            if puzzle.kernel(lang).is_none() {
                let id = puzzle.id().to_string();
                match puzzle.spec.raw.why_no_kernel.get(&lang) {
                    Some(reason) => trials.push(
                        Trial::test(format!("{name}::present"), || Ok(()))
                            .with_kind(format!("skipped: no {} kernel: {reason}", lang.label()))
                            .with_ignored_flag(true),
                    ),
                    None => trials.push(Trial::test(format!("{name}::present"), move || {
                        Err(format!(
                            "{id} has no {} kernel; add one, or say why in the spec's `why_no_kernel`",
                            lang.label()
                        )
                        .into())
                    })),
                }
                continue;
            }
            // The teaching size (solution, skeleton), then the spec's stress cases (solution).
            let mut cases: Vec<(Variant, Option<Constants>)> =
                vec![(Variant::Solution, None), (Variant::Skeleton, None)];
            cases.extend(
                puzzle
                    .spec
                    .stress_cases()
                    .into_iter()
                    .map(|c| (Variant::Solution, Some(c))),
            );
            for (variant, stress) in cases {
                let name = match &stress {
                    None => format!("{name}::{variant}"),
                    Some(case) => {
                        let set: Vec<String> =
                            case.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        format!("{name}::stress[{}]", set.join(","))
                    }
                };
                let make = |name: String| {
                    let book = book.clone();
                    let id = puzzle.id().to_string();
                    let stress = stress.clone();
                    Trial::test(name, move || {
                        let puzzle = book.find(&id).map_err(Failed::from)?;
                        check(puzzle, lang, variant, stress.as_ref())
                    })
                };
                match RUNNER.backend(kind) {
                    Ok(b) => match b.compile_only() {
                        None => trials.push(make(name).with_kind(kind.to_string())),
                        // Compiled here; the run itself is skipped, by name and reason.
                        Some(reason) => {
                            trials
                                .push(make(format!("{name}::compile")).with_kind(kind.to_string()));
                            trials.push(
                                Trial::test(format!("{name}::run"), || Ok(()))
                                    .with_kind(format!("skipped: {reason}"))
                                    .with_ignored_flag(true),
                            );
                        }
                    },
                    Err(e) => trials.push(
                        make(name)
                            .with_kind(format!("skipped: {e}"))
                            .with_ignored_flag(true),
                    ),
                }
            }
        }
    }
    libtest_mimic::run(&args, trials).exit();
}

/// The puzzle's CPU reference exists and, at the teaching size, gives the
/// values the spec lists (lists come from the seeds; `reference` entries are
/// the reference itself, so only the lists are compared).
fn reference_agrees(spec: &runner::spec::PuzzleSpec) -> Result<(), Failed> {
    let resolved = spec.resolve(&Constants::new()).map_err(|e| e.to_string())?;
    let computed = runner::reference::expected(&resolved).ok_or_else(|| {
        format!(
            "`{}` has no CPU reference in runner/src/reference.rs",
            resolved.reference
        )
    })?;
    for b in resolved.outputs() {
        let want = b.expect.as_ref().ok_or("no expected values")?;
        let got = computed
            .get(&b.name)
            .ok_or_else(|| format!("the reference computes no `{}`", b.name))?;
        let differs = want.len() != got.len()
            || want
                .iter()
                .zip(got)
                .any(|(w, g)| (w - g).abs() > runner::verify::TOLERANCE * (1.0 + w.abs()));
        if differs {
            return Err(format!(
                "the spec expects `{}` = {want:?}, but the CPU reference `{}` computes {got:?}",
                b.name, resolved.reference
            )
            .into());
        }
    }
    Ok(())
}

fn check(
    puzzle: &Puzzle,
    lang: Lang,
    variant: Variant,
    stress: Option<&Constants>,
) -> Result<(), Failed> {
    let kernel = puzzle.kernel(lang).ok_or("no kernel")?;
    let report = RUNNER
        .run_source(puzzle, lang, variant, &kernel.variant(variant), stress)
        .map_err(|e| e.to_string())?;
    let ok = match (variant, report.status) {
        (Variant::Solution, Status::Pass) => true,
        (Variant::Skeleton, Status::Fail) => true,
        // Compiled but not run (no GPU for this backend): compiling is what can be checked.
        (_, Status::Compiled) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        let want = match variant {
            Variant::Skeleton => "the skeleton to compile and fail",
            _ => "the solution to pass",
        };
        Err(format!("expected {want}, got:\n{}", report.to_text()).into())
    }
}
