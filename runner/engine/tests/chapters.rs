//! Every chapter's puzzles, as one test per puzzle, language, variant and backend.
//!
//! - the solution must pass (wgpu, sim, CUDA on a GPU or on the CUDA
//!   checker), and compile (CUDA without a GPU);
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
//!   wherever a recording kept them;
//! - CUDA C runs on the CUDA backend; where it only compiles (no NVIDIA
//!   GPU), each `::run` is made on the CUDA checker instead (`ptx-sim`,
//!   labelled `sim`), except for a kernel with an instruction the checker
//!   lacks (skipped, by name); and the checker agrees with the H100
//!   recordings of every CUDA solution.

use libtest_mimic::{Arguments, Failed, Trial};
use puzzle_core::assess::cases::{self, Case};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::{Backend, BackendKind};
use puzzle_core::chapter::book::Book;
use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::judge::verify::BufferCheck;
use puzzle_core::judge::verify::{close, close_within};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use puzzle_core::spec::data::Dtype;
use puzzle_core::spec::finding::Finding;
use puzzle_core::spec::reference;
use puzzle_core::spec::resolve::PuzzleSpec;
use runner::perf::record::{self, Recorded, Recording};
use runner::run::Runner;
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

/// This group's trials, for the suite's `main`.
pub fn trials(args: &Arguments) -> Vec<Trial> {
    // GPU_PUZZLES_BOOK: where the book is when this binary runs away from its
    // checkout (the GPU machine gets a copy at another path).
    let root = std::env::var_os("GPU_PUZZLES_BOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .nth(2)
                .expect("workspace root")
                .to_path_buf()
        });
    let book = match runner::book::load(&root) {
        Ok(book) => Arc::new(book),
        Err(errors) => {
            for e in &errors {
                eprintln!("{e}");
            }
            panic!("the book does not load: {} problem(s) above", errors.len());
        }
    };
    assert!(!book.puzzles.is_empty(), "the book declares no puzzles");
    let (recordings, problems) = record::load_all(&book.root.join(record::RESULTS_DIR));
    assert!(
        problems.is_empty(),
        "recorded results do not load: {problems:?}"
    );
    let recordings = Arc::new(recordings);

    let mut trials = Vec::new();
    // Trials that run on the CUDA checker, made once it is known which
    // kernels it lacks an instruction for (after the listing).
    let mut on_checker = Vec::new();
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
                    // The reason is the chapter's to give (`why_no_kernel`);
                    // the test only holds that there is one.
                    Some(reason) if !reason.trim().is_empty() => trials.push(
                        Trial::test(format!("{name}::present"), || Ok(()))
                            .with_kind(format!(
                                "skipped: no {} kernel, for the reason its spec's why_no_kernel gives",
                                lang.label()
                            ))
                            .with_ignored_flag(true),
                    ),
                    _ => trials.push(Trial::test(format!("{name}::present"), move || {
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
            // A stress case is named by its place in the spec (`stress2`), not
            // its sizes, which would take a test line past 100 columns; a
            // failure says the sizes.
            let mut runs: Vec<(Variant, Case, String)> = vec![
                (
                    Variant::Solution,
                    Case::teaching(),
                    Variant::Solution.to_string(),
                ),
                (
                    Variant::Skeleton,
                    Case::teaching(),
                    Variant::Skeleton.to_string(),
                ),
            ];
            runs.extend(
                cases::cases(&puzzle.spec, true)
                    .into_iter()
                    .skip(1)
                    .enumerate()
                    .map(|(i, c)| (Variant::Solution, c, format!("stress{}", i + 1))),
            );
            if lang == Lang::Wgsl {
                trials.push(agreement(&book, puzzle));
                trials.push(recorded_agreement(&book, &recordings, puzzle));
            }
            if lang == Lang::Cuda {
                let recorded = cuda_recorded_agreement(&book, &recordings, puzzle);
                match recorded {
                    Err(trial) => trials.push(trial),
                    Ok(pending) => {
                        let name = pending.name.clone();
                        on_checker.push(OnChecker {
                            index: trials.len(),
                            ..pending
                        });
                        trials.push(skipped(name, "listed".into()));
                    }
                }
            }
            // Each backend that runs this language: the default one, then the
            // others by name. The CUDA checker is no backend of its own here:
            // it runs CUDA's runs where the CUDA backend only compiles.
            let kinds = BackendKind::ALL
                .into_iter()
                .filter(|&k| k.lang() == lang && k != BackendKind::PtxSim);
            for (kind, (variant, case, run)) in kinds.flat_map(|k| runs.iter().map(move |r| (k, r)))
            {
                let (variant, case) = (*variant, case.clone());
                let name = match kind == BackendKind::for_lang(lang) {
                    true => format!("{name}::{run}"),
                    false => format!("{name}::{kind}::{run}"),
                };
                if kind.is_simulator()
                    && let Some(why) = beyond_checker(puzzle, &case)
                {
                    trials.push(skipped(name, why));
                    continue;
                }
                match RUNNER.backend(kind) {
                    Ok(b) => match b
                        .compile_only()
                        .map(str::to_string)
                        .or_else(|| too_few_gpus(b, puzzle, &case))
                    {
                        None => trials.push(trial(&book, puzzle, name, kind, variant, &case)),
                        // Compiled here; the run itself is made on the CUDA
                        // checker, or skipped, by name and reason.
                        Some(reason) => {
                            let reason = reason.as_str();
                            let compile = format!("{name}::compile");
                            trials.push(trial(&book, puzzle, compile, kind, variant, &case));
                            let run = format!("{name}::run");
                            let why = match RUNNER.backend(BackendKind::PtxSim) {
                                Err(e) => Some(format!("{reason}; {e}")),
                                Ok(_) => beyond_checker(puzzle, &case),
                            };
                            match why {
                                Some(why) => trials.push(skipped(run, why)),
                                None => {
                                    let (book, case) = (book.clone(), case.clone());
                                    let id = puzzle.id().to_string();
                                    let name = run.clone();
                                    on_checker.push(OnChecker {
                                        index: trials.len(),
                                        name: run.clone(),
                                        id: id.clone(),
                                        variant,
                                        make: Box::new(move || {
                                            let puzzle = book.find(&id).ok();
                                            let puzzle = puzzle.expect("listed from this book");
                                            let sim = BackendKind::PtxSim;
                                            trial(&book, puzzle, name, sim, variant, &case)
                                                .with_kind("sim")
                                        }),
                                    });
                                    trials.push(skipped(run, "listed".into()));
                                }
                            }
                        }
                    },
                    Err(e) => trials.push(
                        trial(&book, puzzle, name, kind, variant, &case)
                            .with_kind(format!("skipped: {e}"))
                            .with_ignored_flag(true),
                    ),
                }
            }
        }
    }
    resolve_on_checker(args, &book, &mut trials, on_checker);
    trials
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
            "`{}` has no CPU reference in runner/core/src/spec/reference/",
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
                .any(|(w, g)| !close_within(*g, *w, b.tolerance()));
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

/// The trial of `variant` of `puzzle` at `case` on `kind`, labelled with the backend.
fn trial(
    book: &Arc<Book>,
    puzzle: &Puzzle,
    name: String,
    kind: BackendKind,
    variant: Variant,
    case: &Case,
) -> Trial {
    let (book, id, case) = (book.clone(), puzzle.id().to_string(), case.clone());
    Trial::test(name, move || {
        let puzzle = book.find(&id).map_err(Failed::from)?;
        check(puzzle, kind, variant, &case)
    })
    .with_kind(kind.to_string())
}

/// A trial listed as skipped, with why.
fn skipped(name: String, why: String) -> Trial {
    Trial::test(name, || Ok(()))
        .with_kind(format!("skipped: {why}"))
        .with_ignored_flag(true)
}

/// Why the suite leaves `case` off the CPU checkers (a stress case of more
/// than [`SIM_MAX_INVOCATIONS`] invocations), if it does.
fn beyond_checker(puzzle: &Puzzle, case: &Case) -> Option<String> {
    let overrides = case.overrides.as_ref()?;
    let spec = puzzle.spec.sized(overrides).map_err(|e| e.to_string());
    let threads: u64 = spec
        .map(|s| s.launches.iter().map(|l| l.total_threads()).sum())
        .unwrap_or(0);
    (threads > SIM_MAX_INVOCATIONS).then(|| {
        format!(
            "{threads} invocations; the suite runs sim stress cases up to {SIM_MAX_INVOCATIONS}"
        )
    })
}

/// Why `case` of `puzzle` cannot run on backend `b`, which runs kernels on
/// fewer GPUs than the case's `gpus` (the run is then compiled there and
/// made on the CUDA checker, which simulates every rank).
fn too_few_gpus(b: &dyn Backend, puzzle: &Puzzle, case: &Case) -> Option<String> {
    let gpus = puzzle
        .spec
        .gpus(case.overrides.as_ref().unwrap_or(&Default::default()));
    runner::backend::too_few_gpus(gpus as usize, b.gpus())
}

/// A trial on the CUDA checker, made once it is known whether the checker
/// can run the kernel (`variant` of puzzle `id`): it stands at `index`.
struct OnChecker {
    index: usize,
    name: String,
    id: String,
    variant: Variant,
    make: Box<dyn FnOnce() -> Trial>,
}

/// Puts each trial of `pending` in its place: skipped, by name, where the
/// CUDA checker lacks an instruction of its kernel (a static scan of the
/// PTX; the compiles are kept for the runs), else the trial itself. Only
/// the kernels of trials the filter keeps are compiled, in parallel.
fn resolve_on_checker(
    args: &Arguments,
    book: &Book,
    trials: &mut [Trial],
    pending: Vec<OnChecker>,
) {
    let kept = |p: &OnChecker| {
        let probe = Trial::test(p.name.clone(), || Ok(())).with_kind("sim");
        !args.is_filtered_out(&probe)
    };
    let mut kernels: Vec<(String, Variant)> = pending
        .iter()
        .filter(|p| kept(p))
        .map(|p| (p.id.clone(), p.variant))
        .collect();
    let mut seen = std::collections::HashSet::new();
    kernels.retain(|k| seen.insert(k.clone()));
    let lacking = lacking(book, &kernels);
    for p in pending {
        let lacks = lacking
            .iter()
            .find(|(id, variant, _)| *id == p.id && *variant == p.variant)
            .and_then(|(_, _, lacks)| lacks.clone());
        trials[p.index] = match lacks {
            Some(why) => skipped(p.name, why),
            None => (p.make)(),
        };
    }
}

/// For each kernel (puzzle id, variant), what the CUDA checker lacks to run
/// it, in the words of a skipped trial; compiled on every core.
fn lacking(book: &Book, kernels: &[(String, Variant)]) -> Vec<(String, Variant, Option<String>)> {
    let Ok(checker) = runner::backend::cuda_checker_from_env() else {
        return vec![];
    };
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let chunk = kernels.len().div_ceil(cores).max(1);
    std::thread::scope(|scope| {
        let handles: Vec<_> = kernels
            .chunks(chunk)
            .map(|chunk| {
                let checker = &checker;
                scope.spawn(move || {
                    chunk
                        .iter()
                        .map(|(id, variant)| {
                            let why = lacks(book, checker, id, *variant);
                            (id.clone(), *variant, why)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect()
    })
}

/// "the CPU checker lacks `tcgen05.mma` (line 12)", where it does.
fn lacks(
    book: &Book,
    checker: &runner::backend::CudaCheckerBackend,
    id: &str,
    variant: Variant,
) -> Option<String> {
    let puzzle = book.find(id).ok()?;
    let source = puzzle.kernel(Lang::Cuda)?.variant(variant);
    let spec = puzzle.spec.resolve(&Default::default()).ok()?;
    let entries = spec.launches.iter().map(|l| l.kernel.as_str());
    let (instruction, at) = checker.lacks(&source, entries)?;
    Some(format!(
        "the CPU checker lacks `{instruction}` (line {})",
        at.line
    ))
}

fn check(puzzle: &Puzzle, kind: BackendKind, variant: Variant, case: &Case) -> Result<(), Failed> {
    let kernel = puzzle.kernel(kind.lang()).ok_or("no kernel")?;
    let report = RUNNER
        .run_on(kind, puzzle, variant, &kernel.variant(variant), case)
        .map_err(|e| e.to_string())?;
    let bug = puzzle.spec.raw.bug;
    // A kernel given whole is its own skeleton: it passes as the solution does.
    let variant = match variant {
        Variant::Skeleton if kernel.is_given_whole() => Variant::Solution,
        v => v,
    };
    let ok = match (variant, report.status) {
        (Variant::Solution, Status::Pass) => true,
        (Variant::Skeleton, _) if bug.is_some() && kind.is_simulator() => {
            bug.is_some_and(|b| report.findings().contains(&b))
        }
        (Variant::Skeleton, Status::Pass) => bug.is_some(),
        // A kernel given with a hang: a GPU's time-out is its bug.
        (Variant::Skeleton, Status::Error) => {
            bug == Some(Finding::Hang) && report.findings().contains(&Finding::Hang)
        }
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
        let at = match case.overrides {
            Some(_) => format!(" at {}", case.label()),
            None => String::new(),
        };
        Err(format!("expected {want}{at}, got:\n{}", report.to_text()).into())
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
        record::lookup(recordings, puzzle, Lang::Wgsl, variant)
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
                // Within the verifier's tolerance (a GPU's division may
                // differ from the CPU's in the last bits).
                if let Some(ours) = differs_from_recording(&sim, check, close) {
                    return Err(format!(
                        "`{}`: recorded on {device} as {:?}, sim gives {ours:?}",
                        check.name, check.got,
                    )
                    .into());
                }
            }
        }
        Ok(())
    })
    .with_kind("sim")
}

/// The checker's values of the recorded output `check`, where they differ
/// from the recording's: `equal` compares two values both present (two NaNs
/// are equal), and a recording that keeps only the head and tail of a long
/// output is compared with the checker's cut the same way. None where they
/// agree.
fn differs_from_recording(
    sim: &RunReport,
    check: &BufferCheck,
    equal: impl Fn(f64, f64) -> bool,
) -> Option<Option<Vec<Option<f64>>>> {
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
                (Some(a), Some(b)) => (a.is_nan() && b.is_nan()) || equal(*a, *b),
                (a, b) => a == b,
            })
    });
    (!same).then(|| ours.map(|c| c.got))
}

/// `{id}::cuda::sim_agrees_with_recorded`: on every recording in `results/`
/// of this puzzle's current CUDA solution on an H100 (its teaching size),
/// the CUDA checker gives the same verdict and the same outputs: bit for bit
/// where the output is an integer type, within its type's tolerance
/// otherwise (a GPU's division, `rsqrt` and `exp` may differ from the CPU's
/// in the last bits). Skipped, by name, when no recording is current or the
/// checker cannot open; `Err` is such a trial, ready.
fn cuda_recorded_agreement(
    book: &Arc<Book>,
    recordings: &Arc<Vec<Recording>>,
    puzzle: &Puzzle,
) -> Result<OnChecker, Trial> {
    let name = format!("{}::cuda::sim_agrees_with_recorded", puzzle.id());
    let recorded: Vec<(String, RunReport)> =
        record::lookup(recordings, puzzle, Lang::Cuda, Variant::Solution)
            .into_iter()
            .filter_map(|r| match r {
                Recorded::Current { recording, report }
                    if recording.device.name.contains("H100") =>
                {
                    Some((recording.device.name.clone(), report.clone()))
                }
                _ => None,
            })
            .collect();
    if recorded.is_empty() {
        let why = "no current H100 recording of this puzzle's CUDA solution in results/";
        return Err(skipped(name, why.into()));
    }
    if let Err(e) = RUNNER.backend(BackendKind::PtxSim) {
        return Err(skipped(name, e.to_string()));
    }
    let (book, id) = (book.clone(), puzzle.id().to_string());
    let trial_name = name.clone();
    let make = move || {
        Trial::test(trial_name, move || {
            let puzzle = book.find(&id).map_err(Failed::from)?;
            let kernel = puzzle.kernel(Lang::Cuda).ok_or("no kernel")?;
            let source = kernel.variant(Variant::Solution);
            let sim = RUNNER
                .run_on(
                    BackendKind::PtxSim,
                    puzzle,
                    Variant::Solution,
                    &source,
                    &Case::teaching(),
                )
                .map_err(|e| e.to_string())?;
            for (device, gpu) in &recorded {
                if sim.status != gpu.status {
                    return Err(format!(
                        "recorded on {device} as {}, the checker says:\n{}",
                        gpu.status.word(),
                        sim.to_text()
                    )
                    .into());
                }
                for check in gpu.checks.iter().filter(|c| !c.got.is_empty()) {
                    let exact = matches!(check.dtype, Dtype::I32 | Dtype::U32);
                    let tolerance = check.tolerance();
                    let equal = |a: f64, b: f64| {
                        if exact {
                            a.to_bits() == b.to_bits()
                        } else {
                            close_within(a, b, tolerance)
                        }
                    };
                    if let Some(ours) = differs_from_recording(&sim, check, equal) {
                        return Err(format!(
                            "`{}`: recorded on {device} as {:?}, the checker gives {ours:?}",
                            check.name, check.got,
                        )
                        .into());
                    }
                }
            }
            Ok(())
        })
        .with_kind("sim")
    };
    Ok(OnChecker {
        index: 0,
        name,
        id: puzzle.id().to_string(),
        variant: Variant::Solution,
        make: Box::new(make),
    })
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
