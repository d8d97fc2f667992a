//! Every chapter's puzzles, as one test per puzzle, language, variant and backend.
//!
//! - the solution must pass (wgpu, sim) or compile (CUDA without a GPU);
//! - the skeleton must compile and, where it can run, fail;
//! - a debugging case's kernel as given (its skeleton) must show the spec's
//!   `bug` on the CPU checker, and compile and run everywhere else: a GPU
//!   may well pass a race, which is the case's point;
//! - a backend that is not here is reported by name as skipped (libtest's
//!   "ignored", with the reason printed), never passed silently;
//! - a language without a kernel needs the spec's `why_no_kernel` reason,
//!   and is then reported as skipped with that reason;
//! - the CPU reference reproduces every expected list the spec writes out
//!   (the seeds' printouts), so the references that judge stress runs are
//!   themselves checked against the seeds;
//! - WGSL runs on wgpu and on the CPU simulator (`sim`, which also checks for
//!   races, out-of-bounds indices and divergent barriers), and the two agree
//!   on every solution's outputs;
//! - the simulator also agrees with the GPU recordings in `results/`: the
//!   same verdict for the solution and the skeleton, and the same values
//!   wherever a recording kept them.

use libtest_mimic::{Arguments, Failed, Trial};
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::check::cases::{self, Case};
use puzzle_core::check::execute::Settings;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::judge::verify::{close, close_within};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::run::backend::BackendKind;
use puzzle_core::spec::reference;
use puzzle_core::spec::resolve::PuzzleSpec;
use runner::perf::record::schema::{Recorded, Recording};
use runner::perf::record::{self, store};
use runner::run::runner::Runner;
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock};

/// Stress runs the simulator takes on in the test suite; larger grids are
/// listed as skipped (`runner run --backend sim --stress` still runs them).
/// Measured in the dev profile on one core (the interpreter is built at
/// opt-level 3 there): every sim stress case of the book up to this bound
/// together takes 2 to 4 s. The one above it, the two-kernel scan at
/// 100,003 elements (about 200,000 invocations), is quadratic in its second
/// kernel (workgroup b sums the b block totals before it: some 78 million
/// loop steps) and does not finish within the 10 s run limit.
const SIM_MAX_INVOCATIONS: u64 = 65_536;

static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        ..Settings::default()
    })
});

fn main() {
    // A job isolated in a child process (a CUDA launch) re-enters here.
    runner::worker::serve_if_child();
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
    let book = match runner::book::load::load(&root) {
        Ok(book) => Arc::new(book),
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            panic!("the book does not load: {} problem(s) above", errors.len());
        }
    };
    assert!(!book.puzzles.is_empty(), "the book declares no puzzles");
    let (recordings, problems) = store::load_all(&book.root.join(record::RESULTS_DIR));
    assert!(
        problems.is_empty(),
        "recorded results do not load: {problems:?}"
    );
    let recordings = Arc::new(recordings);

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
            let mut runs: Vec<(Variant, Case)> = vec![
                (Variant::Solution, Case::teaching()),
                (Variant::Skeleton, Case::teaching()),
            ];
            runs.extend(
                cases::cases(&puzzle.spec, true)
                    .into_iter()
                    .skip(1)
                    .map(|c| (Variant::Solution, c)),
            );
            if lang == Lang::Wgsl {
                trials.push(agreement(&book, puzzle));
                trials.push(recorded_agreement(&book, &recordings, puzzle));
            }
            // Each backend that runs this language: the default one, then the others by name.
            let kinds = BackendKind::ALL.into_iter().filter(|k| k.lang() == lang);
            for (kind, (variant, case)) in kinds.flat_map(|k| runs.iter().map(move |r| (k, r))) {
                let (variant, case) = (*variant, case.clone());
                let name = match kind == BackendKind::for_lang(lang) {
                    true => name.clone(),
                    false => format!("{name}::{kind}"),
                };
                let name = match &case.overrides {
                    None => format!("{name}::{variant}"),
                    Some(overrides) => {
                        let set: Vec<String> =
                            overrides.iter().map(|(k, v)| format!("{k}={v}")).collect();
                        format!("{name}::stress[{}]", set.join(","))
                    }
                };
                let make = |name: String| {
                    let book = book.clone();
                    let id = puzzle.id().to_string();
                    let case = case.clone();
                    Trial::test(name, move || {
                        let puzzle = book.find(&id).map_err(Failed::from)?;
                        check(puzzle, kind, variant, &case)
                    })
                };
                if kind.is_simulator()
                    && let Some(overrides) = &case.overrides
                {
                    let spec = puzzle.spec.sized(overrides).map_err(|e| e.to_string());
                    let threads: u64 = spec
                        .map(|s| s.launches.iter().map(|l| l.total_threads()).sum())
                        .unwrap_or(0);
                    if threads > SIM_MAX_INVOCATIONS {
                        trials.push(
                            Trial::test(name, || Ok(()))
                                .with_kind(format!(
                                    "skipped: {threads} invocations; the suite runs sim stress cases up to {SIM_MAX_INVOCATIONS}"
                                ))
                                .with_ignored_flag(true),
                        );
                        continue;
                    }
                }
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
fn reference_agrees(spec: &PuzzleSpec) -> Result<(), Failed> {
    let resolved = spec
        .resolve(&Default::default())
        .map_err(|e| e.to_string())?;
    let computed = reference::expected(&resolved).ok_or_else(|| {
        format!(
            "`{}` has no CPU reference in runner/core/src/spec/reference.rs",
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
                .any(|(w, g)| !close_within(*g, *w, b.dtype.tolerance()));
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

fn check(puzzle: &Puzzle, kind: BackendKind, variant: Variant, case: &Case) -> Result<(), Failed> {
    let kernel = puzzle.kernel(kind.lang()).ok_or("no kernel")?;
    let report = RUNNER
        .run_on(kind, puzzle, variant, &kernel.variant(variant), case)
        .map_err(|e| e.to_string())?;
    let bug = puzzle.spec.raw.bug;
    let ok = match (variant, report.status) {
        (Variant::Solution, Status::Pass) => true,
        (Variant::Skeleton, _) if bug.is_some() && kind.is_simulator() => {
            bug.is_some_and(|b| report.findings().contains(&b))
        }
        (Variant::Skeleton, Status::Pass) => bug.is_some(),
        (Variant::Skeleton, Status::Fail) => true,
        // Compiled but not run (no GPU for this backend): compiling is what can be checked.
        (_, Status::Compiled) => true,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        let want = match (variant, bug) {
            (Variant::Skeleton, Some(bug)) if kind.is_simulator() => {
                format!("the kernel as given to show {bug}")
            }
            (Variant::Skeleton, Some(_)) => "the kernel as given to compile and run".into(),
            (Variant::Skeleton, None) => "the skeleton to compile and fail".into(),
            _ => "the solution to pass".into(),
        };
        Err(format!("expected {want}, got:\n{}", report.to_text()).into())
    }
}

/// `{id}::wgsl::sim_agrees_with_recorded`: on every GPU recording in
/// `results/` that holds this puzzle's current WGSL runs, the simulator gives
/// the same verdict for the solution and the skeleton (not for a debugging
/// case's kernel as given, which a GPU may pass), and the solution's
/// values equal the recorded ones wherever the recording kept them (buffers
/// of up to 64 elements). Skipped, by name, when no recording is current.
fn recorded_agreement(
    book: &Arc<Book>,
    recordings: &Arc<Vec<Recording>>,
    puzzle: &Puzzle,
) -> Trial {
    let name = format!("{}::wgsl::sim_agrees_with_recorded", puzzle.id());
    let current = |variant| {
        store::lookup(recordings, puzzle, Lang::Wgsl, variant)
            .into_iter()
            .filter_map(|r| match r {
                Recorded::Current { recording, report } => {
                    Some((recording.device.name.clone(), report.clone()))
                }
                Recorded::Stale { .. } => None,
            })
            .collect::<Vec<_>>()
    };
    let recorded: Vec<(Variant, String, RunReport)> = [Variant::Solution, Variant::Skeleton]
        .into_iter()
        .flat_map(|v| current(v).into_iter().map(move |(d, r)| (v, d, r)))
        .collect();
    if recorded.is_empty() {
        return Trial::test(name, || Ok(()))
            .with_kind("skipped: no current GPU recording of this puzzle's WGSL in results/")
            .with_ignored_flag(true);
    }
    let (book, id) = (book.clone(), puzzle.id().to_string());
    Trial::test(name, move || {
        let puzzle = book.find(&id).map_err(Failed::from)?;
        let kernel = puzzle.kernel(Lang::Wgsl).ok_or("no kernel")?;
        for (variant, device, gpu) in &recorded {
            let source = kernel.variant(*variant);
            let sim = RUNNER
                .run_on(
                    BackendKind::Sim,
                    puzzle,
                    *variant,
                    &source,
                    &Case::teaching(),
                )
                .map_err(|e| e.to_string())?;
            // A debugging case's kernel as given is the exception: the
            // checker must fail it even where a GPU passes it (a race).
            let given = *variant == Variant::Skeleton && puzzle.spec.raw.bug.is_some();
            if sim.status != gpu.status && !given {
                return Err(format!(
                    "{variant}: recorded on {device} as {}, sim says:\n{}",
                    gpu.status.word(),
                    sim.to_text()
                )
                .into());
            }
            if *variant != Variant::Solution {
                continue;
            }
            for check in gpu.checks.iter().filter(|c| !c.got.is_empty()) {
                // A recording keeps the head and tail of a long output: the
                // sim's is cut the same way before the two are compared,
                // within the verifier's tolerance (a GPU's division may
                // differ from the CPU's in the last bits).
                let ours = sim.checks.iter().find(|c| c.name == check.name).map(|c| {
                    let mut c = c.clone();
                    if check.abridged.is_some() {
                        // Only the values matter here, not the index lists.
                        c.abridge(usize::MAX);
                    }
                    c
                });
                let same = ours.as_ref().is_some_and(|o| {
                    o.got.len() == check.got.len()
                        && o.got.iter().zip(&check.got).all(|(a, b)| match (a, b) {
                            (Some(a), Some(b)) => (a.is_nan() && b.is_nan()) || close(*a, *b),
                            (a, b) => a == b,
                        })
                });
                if !same {
                    return Err(format!(
                        "`{}`: recorded on {device} as {:?}, sim gives {:?}",
                        check.name,
                        check.got,
                        ours.map(|c| c.got)
                    )
                    .into());
                }
            }
        }
        Ok(())
    })
    .with_kind("sim")
}

/// `{id}::wgsl::sim_agrees_with_wgpu`: the simulator's outputs equal wgpu's
/// on the solution, element by element (poison and guard bands included),
/// within the verifier's tolerance: a GPU's division and inverse square
/// root may differ from the CPU's in the last bits (the H200's do in
/// Puzzle 25's normalize). Skipped, by name, where wgpu has no adapter.
fn agreement(book: &Arc<Book>, puzzle: &Puzzle) -> Trial {
    let name = format!("{}::wgsl::sim_agrees_with_wgpu", puzzle.id());
    if let Err(e) = RUNNER.backend(BackendKind::Wgpu) {
        return Trial::test(name, || Ok(()))
            .with_kind(format!("skipped: {e}"))
            .with_ignored_flag(true);
    }
    let (book, id) = (book.clone(), puzzle.id().to_string());
    Trial::test(name, move || {
        let puzzle = book.find(&id).map_err(Failed::from)?;
        let kernel = puzzle.kernel(Lang::Wgsl).ok_or("no kernel")?;
        let source = kernel.variant(Variant::Solution);
        let run = |kind| {
            RUNNER
                .run_on(kind, puzzle, Variant::Solution, &source, &Case::teaching())
                .map_err(|e| e.to_string())
        };
        let (gpu, sim) = (run(BackendKind::Wgpu)?, run(BackendKind::Sim)?);
        let same = |a: &Option<f64>, b: &Option<f64>| match (a, b) {
            (None, None) => true,
            (Some(a), Some(b)) => (a.is_nan() && b.is_nan()) || close(*a, *b),
            _ => false,
        };
        let agree = gpu.checks.len() == sim.checks.len()
            && gpu.checks.iter().zip(&sim.checks).all(|(g, s)| {
                g.name == s.name
                    && g.out_of_bounds == s.out_of_bounds
                    && g.got.len() == s.got.len()
                    && g.got.iter().zip(&s.got).all(|(a, b)| same(a, b))
            });
        if gpu.checks.is_empty() || !agree {
            return Err(format!(
                "wgpu and sim disagree:\n{}\n{}",
                gpu.to_text(),
                sim.to_text()
            )
            .into());
        }
        Ok(())
    })
    .with_kind("sim")
}
