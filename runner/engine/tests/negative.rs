//! Negative fixtures: wrong kernels and impossible launches that the checks
//! must reject, each with the message and line a user would need.
//!
//! Each case runs on its backend when present; otherwise it is listed as
//! skipped, by name and reason. Every WGSL case also runs on the CPU
//! simulator (`sim`), which must reject it the same way, and must catch
//! every race of `races.toml` on every run, with the line. A CUDA case runs
//! on the GPU, or, where the CUDA backend only compiles (no NVIDIA GPU), on
//! the CUDA checker (`ptx-sim`, labelled `sim`), which must reject it the
//! same way and catch every CUDA race; the few a GPU alone can show
//! ([`ONLY_A_GPU_SHOWS`]) are skipped there, by name.
//!
//! A fixture that breaks a solution is an edit of it (`fixtures/edits.toml`,
//! made on today's solution when a trial runs: see [`edits`]); the rest are
//! whole files in `fixtures/kernels/`. The tables name both alike, and name
//! an edit's lines by the text they hold.
//!
//! The tables hold the phrase each report must contain; where a CPU checker
//! made the report, the whole of it is also held to a reviewed snapshot
//! ([`messages`], `negative/snapshots/`), so that any changed word is a diff.

mod edits;
mod messages;
mod races;
mod subgroups;
mod wrong_kernels;

use edits::Fixture;
use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::cases::{self, Case};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use races::races;
use runner::run::Runner;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;
use subgroups::SUBGROUP_SIZE_BOUND;
use wrong_kernels::{At, ONLY_A_GPU_SHOWS, WITHIN_BOUNDS, WRONG_KERNELS};

/// A short timeout: the endless-loop fixture must be stopped quickly.
static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        timeout: std::time::Duration::from_secs(5),
        ..Settings::default()
    })
});

/// The book: this checkout, or `GPU_PUZZLES_BOOK` where the binary runs away
/// from it (the GPU machine gets a copy at another path).
fn root() -> PathBuf {
    std::env::var_os("GPU_PUZZLES_BOOK")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .ancestors()
                .nth(2)
                .unwrap()
                .to_path_buf()
        })
}

fn fixtures() -> PathBuf {
    root().join("runner/engine/tests/fixtures")
}

/// Kernels right at the teaching size and wrong at another: (file, puzzle,
/// phrase the failing stress report must contain). The teaching run must
/// pass (that is the trap) and some stress case must fail.
const STRESS_ONLY: &[(&str, &str, &str)] = &[
    (
        "p06_hard_coded_size.wgsl",
        "p06_blocks",
        "elements of `out` were never written",
    ),
    // A shared-memory solution that is right only because size == threads per block.
    (
        "p09_pooling_assumes_tpb.wgsl",
        "p09_pooling",
        "elements of `out` are wrong",
    ),
    (
        "p09_pooling_assumes_tpb.cu",
        "p09_pooling",
        "elements of `out` are wrong",
    ),
    (
        "p13_row_sum_tpb_stride.wgsl",
        "p13_row_sum",
        "elements of `out` are wrong",
    ),
    (
        "p13_row_sum_tpb_stride.cu",
        "p13_row_sum",
        "elements of `out` are wrong",
    ),
];

/// Launches no device accepts: (puzzle in limits_book, language, message part).
const IMPOSSIBLE_LAUNCHES: &[(&str, Lang, &str)] = &[
    (
        "too_many_blocks",
        Lang::Wgsl,
        "a grid of 70000 workgroups along x; this adapter allows at most",
    ),
    (
        "block_too_large",
        Lang::Wgsl,
        "GPUs allow at most 1024 threads per block",
    ),
    (
        "block_too_large",
        Lang::Cuda,
        "GPUs allow at most 1024 threads per block",
    ),
    (
        "too_much_shared",
        Lang::Wgsl,
        "bytes of workgroup memory; this adapter allows",
    ),
    (
        "too_much_dynamic_shared",
        Lang::Cuda,
        // On a GPU: "…; this GPU allows at most" (its opt-in attribute); on
        // the checker: "…; Hopper GPUs allow at most".
        "of dynamic shared memory (plus 0 static) per block;",
    ),
    // NVRTC does not check the limit; the runner reads the PTX before launching.
    (
        "too_much_shared",
        Lang::Cuda,
        "declare 262144 bytes of static __shared__ memory",
    ),
];

/// Puzzles of the `steps_book` fixture: (id, status of its solution, phrase in the report).
const STEPS_BOOK: &[(&str, Status, &str)] = &[
    // Two launches share a scratch buffer; the second sees the first's writes.
    ("two_steps", Status::Pass, "PASS"),
    // A grid too small for the data: the verdict names the uncovered elements.
    (
        "too_small_grid",
        Status::Fail,
        "5 of 9 elements of `out` were never written: out[4], out[5], out[6], out[7], out[8]",
    ),
    // Guard bands are checked on every buffer, not only on outputs.
    (
        "scratch_overrun",
        Status::Fail,
        "out-of-bounds write: `tmp` has 4 elements, but something wrote index 4, 5, 6, 7",
    ),
];

/// This group's trials, for the suite's `main`.
pub fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    // Every edit made on today's solutions, whatever backends are here.
    trials.push(Trial::test("fixture_edits::apply_every_edit", || {
        let (used, lines) = named_in_tables();
        edits::apply_every_edit(&used, &lines)
    }));
    trials.push(Trial::test(
        "fixture_edits::stale_anchor_is_reported",
        edits::stale_anchor_is_reported,
    ));
    trials.extend(wrong_kernels::trials());
    for &(puzzle, lang, message) in IMPOSSIBLE_LAUNCHES {
        let needs_gpu = lang == Lang::Cuda && ONLY_A_GPU_SHOWS.contains(&puzzle);
        trials.push(trial(
            format!("impossible_launch::{puzzle}::{lang}"),
            lang,
            needs_gpu,
            move || {
                let book = load(&fixtures().join("limits_book")).map_err(|e| format!("{e:?}"))?;
                let report = RUNNER
                    .run(book.find(puzzle)?, lang, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                messages::check(
                    &format!("impossible_launch::{puzzle}::{lang}"),
                    &format!("limits_book's {puzzle}, in {lang}, on the checker"),
                    kind_for(lang),
                    &report,
                );
                expect(&report, Status::Error)?;
                let said = report.message.clone().unwrap_or_default();
                if !said.to_lowercase().contains(&message.to_lowercase()) {
                    return Err(format!("expected {message:?}, got {said:?}").into());
                }
                Ok(())
            },
        ));
    }
    // A fault or a hang must not poison the next puzzle: the CUDA context lives in a child process.
    trials.push(trial(
        "isolation::the_next_puzzle_still_passes".into(),
        Lang::Cuda,
        true,
        || {
            let book = load(&root()).map_err(|e| format!("{e:?}"))?;
            let puzzle = book.find("p01_map")?;
            for bad in ["p01_illegal_address.cu", "p01_endless_loop.cu"] {
                let fixture = Fixture::load(&book, bad)?;
                let report = RUNNER.run_on(
                    BackendKind::Cuda,
                    puzzle,
                    Variant::File,
                    &fixture.source,
                    &Case::teaching(),
                )?;
                expect(&report, Status::Error)?;
                let good = RUNNER
                    .run(puzzle, Lang::Cuda, Variant::Solution)
                    .map_err(|e| e.to_string())?;
                expect(&good, Status::Pass)?;
            }
            Ok(())
        },
    ));
    // The other side of the limit: 100 KiB of dynamic shared memory is
    // allowed once the kernel opts in (the checker allows Hopper's 227 KiB).
    trials.push(trial(
        "gpu_feature::dynamic_shared_beyond_48k".into(),
        Lang::Cuda,
        false,
        || {
            let book = load(&fixtures().join("cuda_book")).map_err(|e| format!("{e:?}"))?;
            let report = RUNNER
                .run(
                    book.find("big_dynamic_shared")?,
                    Lang::Cuda,
                    Variant::Solution,
                )
                .map_err(|e| e.to_string())?;
            expect(&report, Status::Pass)
        },
    ));
    // Kernels right only at the teaching size: a stress run must catch each.
    for &(file, puzzle, message) in STRESS_ONLY {
        let lang = lang_of(Path::new(file));
        trials.push(trial(
            format!("stress_catches::{file}"),
            lang,
            false,
            move || {
                let book = load(&root())?;
                let fixture = Fixture::load(&book, file)?;
                let kind = with_enough_gpus(kind_for(lang), &book, puzzle)?;
                expect(&run_on(kind, &book, puzzle, &fixture, None)?, Status::Pass)?;
                let mut reports = Vec::new();
                let spec = &book.find(puzzle)?.spec;
                // The CUDA checker takes the stress sizes it runs in good time.
                let on_checker = kind.is_simulator();
                for case in cases::cases(spec, true)
                    .into_iter()
                    .skip(1)
                    .filter(|case| !on_checker || cases::checkable(spec, case))
                {
                    let report = run_on(kind, &book, puzzle, &fixture, Some(&case))?;
                    if report.status == Status::Fail && report.to_text().contains(message) {
                        messages::check(
                            &format!("stress_catches::{file}"),
                            &format!("{file} on {puzzle}, the first stress case it fails"),
                            kind,
                            &report,
                        );
                        return Ok(());
                    }
                    reports.push(report.to_text());
                }
                Err(format!(
                    "no stress case failed with {message:?}:\n{}",
                    reports.join("\n")
                )
                .into())
            },
        ));
    }
    trials.extend(races::trials());
    // Launch sequences and coverage (fixture book `steps_book`), on each backend.
    for lang in Lang::ALL {
        for &(puzzle, status, message) in STEPS_BOOK {
            trials.push(trial(
                format!("steps_book::{puzzle}::{lang}"),
                lang,
                false,
                move || {
                    let book =
                        load(&fixtures().join("steps_book")).map_err(|e| format!("{e:?}"))?;
                    let report = RUNNER
                        .run(book.find(puzzle)?, lang, Variant::Solution)
                        .map_err(|e| e.to_string())?;
                    messages::check(
                        &format!("steps_book::{puzzle}::{lang}"),
                        &format!("steps_book's {puzzle}, in {lang}, on the checker"),
                        kind_for(lang),
                        &report,
                    );
                    expect(&report, status)?;
                    let text = report.to_text();
                    if !text.contains(message) {
                        return Err(format!("the report lacks {message:?}:\n{text}").into());
                    }
                    Ok(())
                },
            ));
        }
    }
    // Each step's kernel is checked against that step's args, before any launch.
    trials.push(trial(
        "steps_book::parameters_checked_per_step".into(),
        Lang::Cuda,
        false,
        || {
            let book = load(&fixtures().join("steps_book")).map_err(|e| format!("{e:?}"))?;
            // A whole file: the fixture book's solution is no file to edit.
            let fixture = Fixture::load(&book, "steps_wrong_params.cu")?;
            let report = RUNNER.run_on(
                BackendKind::Cuda,
                book.find("two_steps")?,
                Variant::File,
                &fixture.source,
                &Case::teaching(),
            )?;
            expect(&report, Status::CompileError)?;
            let d = report.diagnostics.first().ok_or("no diagnostic")?;
            if !(d.line == 7
                && d.message
                    .contains("`add_one` takes 2 parameter(s), but the spec passes 3"))
            {
                return Err(
                    format!("expected line 7, `add_one` takes 2 parameter(s); got {d}").into(),
                );
            }
            Ok(())
        },
    ));
    // Fixture books whose runs need a GPU are still read here: a typo must not
    // wait for the GPU machine.
    trials.push(Trial::test("fixture_books::load", || {
        for book in ["limits_book", "cuda_book", "steps_book", "subgroup_book"] {
            load(&fixtures().join(book)).map_err(|e| format!("{book}: {e:?}"))?;
        }
        Ok(())
    }));
    trials.extend(subgroups::trials());
    trials.extend(messages::trials());
    trials.push(Trial::test("malformed_spec::names_its_line", || {
        let errors = runner::book::load(&fixtures().join("bad_spec_book"))
            .expect_err("a spec with an unknown key must not load");
        let said: Vec<String> = errors.iter().map(|e| e.to_string()).collect();
        messages::check_text(
            "malformed_spec::names_its_line",
            "bad_spec_book's spec with an unknown key, as the book's load reports it",
            &said.join("\n"),
        );
        let e = &errors[0];
        if !(e.file.ends_with("src/bad.md")
            && e.line == 8
            && e.message.contains("unknown field `blocks`"))
        {
            return Err(format!("expected src/bad.md:8 unknown field `blocks`, got {e}").into());
        }
        Ok(())
    }));
    trials
}

/// Where a fixture in `lang` runs: WGSL on wgpu; CUDA C on the GPU, or,
/// where the CUDA backend only compiles, on the CUDA checker.
/// `kind`, or the CUDA checker where `kind` is a CUDA GPU too few to run
/// `puzzle` (Part VII on a host of one GPU): the checker simulates every rank.
fn with_enough_gpus(kind: BackendKind, book: &Book, puzzle: &str) -> Result<BackendKind, Failed> {
    let wanted = book.find(puzzle)?.spec.gpus(&Default::default()) as usize;
    let reachable = RUNNER.backend(kind).map_or(0, |b| b.gpus());
    Ok(if kind == BackendKind::Cuda && reachable < wanted {
        BackendKind::PtxSim
    } else {
        kind
    })
}

fn kind_for(lang: Lang) -> BackendKind {
    match lang {
        Lang::Cuda => RUNNER.default_backend(Lang::Cuda),
        Lang::Wgsl => BackendKind::Wgpu,
    }
}

/// A trial of a `lang` fixture on [`kind_for`]'s backend; `needs_gpu`: only
/// a GPU shows what it expects.
fn trial(
    name: String,
    lang: Lang,
    needs_gpu: bool,
    test: impl FnOnce() -> Result<(), Failed> + Send + 'static,
) -> Trial {
    let kind = kind_for(lang);
    match RUNNER.backend(kind) {
        Ok(b) if needs_gpu && (kind.is_simulator() || !b.runs_kernels()) => Trial::test(name, test)
            .with_kind(format!(
                "skipped: needs a GPU for {}",
                BackendKind::for_lang(lang)
            ))
            .with_ignored_flag(true),
        Ok(_) => Trial::test(name, test).with_kind(kind.to_string()),
        Err(e) => Trial::test(name, test)
            .with_kind(format!("skipped: {e}"))
            .with_ignored_flag(true),
    }
}

/// The language of a fixture file, from its extension.
fn lang_of(path: &Path) -> Lang {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or_default();
    Lang::from_extension(ext).unwrap_or_else(|| panic!("{}: not .cu or .wgsl", path.display()))
}

/// A fixture book, or the book itself.
fn load(root: &Path) -> Result<Book, Failed> {
    runner::book::load(root).map_err(|e| format!("{e:?}").into())
}

/// Runs a fixture against a puzzle of `book` on `kind`, at the teaching
/// size or a stress case.
fn run_on(
    kind: BackendKind,
    book: &Book,
    puzzle: &str,
    fixture: &Fixture,
    case: Option<&Case>,
) -> Result<RunReport, Failed> {
    let teaching = Case::teaching();
    Ok(RUNNER.run_on(
        kind,
        book.find(puzzle)?,
        Variant::File,
        &fixture.source,
        case.unwrap_or(&teaching),
    )?)
}

/// What `fixture_edits::apply_every_edit` checks against the tables: the
/// fixtures they name, and (fixture, text) for every line named by its text.
fn named_in_tables() -> (Vec<String>, Vec<(String, String)>) {
    let mut used: Vec<String> = WRONG_KERNELS.iter().map(|w| w.0.to_string()).collect();
    used.extend(STRESS_ONLY.iter().map(|s| s.0.to_string()));
    used.extend(WITHIN_BOUNDS.iter().map(|w| w.0.to_string()));
    used.extend(SUBGROUP_SIZE_BOUND.iter().map(|s| s.0.to_string()));
    let mut lines: Vec<(String, String)> = WRONG_KERNELS
        .iter()
        .filter_map(|w| match w.4 {
            Some(At::Holding(text)) => Some((w.0.to_string(), text.to_string())),
            _ => None,
        })
        .collect();
    for race in races() {
        lines.extend(race.at.iter().map(|t| (race.file.clone(), t.clone())));
        used.push(race.file);
    }
    (used, lines)
}

fn expect(report: &RunReport, status: Status) -> Result<(), Failed> {
    if report.status == status {
        Ok(())
    } else {
        Err(format!("expected {}, got:\n{}", status.word(), report.to_text()).into())
    }
}
