//! The races of the `negative` group (`fixtures/races.toml`): caught by the
//! checker of their language on every run, at their line; on a device where
//! repeated runs always showed them; by compute-sanitizer as recorded; and,
//! on request, measured.

use super::edits::Fixture;
use super::{RUNNER, fixtures, kind_for, lang_of, load, messages, root, trial};
use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::cases::{self, Case, Until};
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::{RunReport, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use runner::backend::Sanitizer;
use runner::run::Runner;
use std::path::Path;
use std::sync::LazyLock;

/// A runner whose CUDA runs go through compute-sanitizer too, where it is
/// found: one for every `race::sanitize::*` trial, so NVRTC loads once.
static SANITIZED: LazyLock<Option<Runner>> = LazyLock::new(|| {
    let sanitizer = Sanitizer::find().ok()?;
    Some(
        Runner::new(Settings {
            timing_samples: 0,
            ..Settings::default()
        })
        .with_sanitizer(sanitizer),
    )
});

/// One entry of `tests/fixtures/races.toml`.
#[derive(Clone, serde::Deserialize)]
pub(super) struct Race {
    /// The fixture: an edit's name (`edits.toml`) or a file of `kernels/`.
    pub(super) file: String,
    puzzle: String,
    /// Device-name fragments where repeated runs always showed the race.
    #[serde(default)]
    caught_on: Vec<String>,
    /// Run the spec's stress cases too (the hazard needs SIZE < TPB, say).
    #[serde(default)]
    stress: bool,
    /// What compute-sanitizer reports (`racecheck: line 15`), or "nothing: why".
    #[serde(default)]
    sanitizer: Option<String>,
    /// The label of the hazard the CUDA checker must report (`data race`)…
    #[serde(default)]
    checker: Option<String>,
    /// …at the line holding one of these texts, any of which will do (a race
    /// is reported at whichever of its two accesses came second).
    #[serde(default)]
    pub(super) at: Vec<String>,
}

/// Runs a race fixture at the teaching size (and the stress sizes where the
/// entry asks) on `kind`: the report of the first run that failed, if any.
fn race_fails(race: &Race, book: &Book, kind: BackendKind) -> Result<Option<RunReport>, Failed> {
    let fixture = Fixture::load(book, &race.file)?;
    let puzzle = book.find(&race.puzzle)?;
    let ran = RUNNER.run_cases(
        kind,
        puzzle,
        Variant::File,
        &fixture.source,
        cases::cases(&puzzle.spec, race.stress),
        Until::FirstFailure,
    )?;
    Ok(ran
        .into_iter()
        .map(|(_, report)| report)
        .find(|r| r.status == Status::Fail))
}

#[derive(serde::Deserialize)]
struct Races {
    #[serde(default)]
    race: Vec<Race>,
}

pub(super) fn races() -> Vec<Race> {
    let path = fixtures().join("races.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str::<Races>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .race
}

/// The races' trials, in the group's order.
pub(super) fn trials() -> Vec<Trial> {
    let mut trials = Vec::new();
    // Races: caught where races.toml says repeated runs always showed them;
    // elsewhere skipped by name, with the file as the record for the CPU checker.
    for race in races() {
        let lang = lang_of(Path::new(&race.file));
        let kind = BackendKind::for_lang(lang);
        let name = format!("race::{}", race.file);
        if lang == Lang::Wgsl {
            trials.push(sim_catches(&race, BackendKind::Sim));
        } else if kind_for(lang) == BackendKind::PtxSim {
            // No GPU runs CUDA here: the CUDA checker must catch the race instead.
            trials.push(sim_catches(&race, BackendKind::PtxSim));
        }
        let device = RUNNER
            .backend(kind)
            .ok()
            .filter(|b| b.runs_kernels())
            .map(|b| b.device().name.clone());
        let caught_here = device
            .as_ref()
            .is_some_and(|d| race.caught_on.iter().any(|c| d.contains(c.as_str())));
        if !caught_here {
            let reason = match &device {
                Some(d) => format!(
                    "skipped: race not reliably observed on {d} (runner/engine/tests/fixtures/races.toml)"
                ),
                None => format!("skipped: no {kind} device runs kernels here"),
            };
            trials.push(
                Trial::test(name, || Ok(()))
                    .with_kind(reason)
                    .with_ignored_flag(true),
            );
            continue;
        }
        trials.push(trial(name, lang, lang == Lang::Cuda, move || {
            let book = load(&root()).map_err(|e| format!("{e:?}"))?;
            if race_fails(&race, &book, kind)?.is_some() {
                Ok(())
            } else {
                Err(format!(
                    "{} passed, but races.toml says it is always caught here",
                    race.file
                )
                .into())
            }
        }));
    }
    // What compute-sanitizer reports for each CUDA race, as races.toml
    // records it: required wherever it and an NVIDIA GPU are present.
    for race in races() {
        if let Some(trial) = sanitizer_catches(race) {
            trials.push(trial);
        }
    }
    // How often each race fires here: GPU_PUZZLES_RACE_RUNS=50 to measure
    // (the numbers behind races.toml); skipped otherwise.
    let runs: Option<usize> = std::env::var("GPU_PUZZLES_RACE_RUNS")
        .ok()
        .and_then(|v| v.parse().ok());
    let measure = Trial::test("races::measure", move || {
        let runs = runs.unwrap_or(0);
        let book = load(&root()).map_err(|e| format!("{e:?}"))?;
        for race in races() {
            let lang = lang_of(Path::new(&race.file));
            let Ok(backend) = RUNNER.backend(BackendKind::for_lang(lang)) else {
                continue;
            };
            if !backend.runs_kernels() {
                continue;
            }
            let mut failed = 0;
            for _ in 0..runs {
                failed +=
                    usize::from(race_fails(&race, &book, BackendKind::for_lang(lang))?.is_some());
            }
            eprintln!(
                "race {} on {}: {failed} of {runs} runs failed",
                race.file,
                backend.device().name
            );
        }
        Ok(())
    });
    trials.push(match runs {
        Some(_) => measure,
        None => measure
            .with_kind("skipped: set GPU_PUZZLES_RACE_RUNS=N to measure".to_string())
            .with_ignored_flag(true),
    });
    trials
}

/// `race::sanitize::{file}`: `--sanitize` reports the tool races.toml names
/// for a CUDA race, at the fixture's own file; None where races.toml
/// records that the tools see nothing. Skipped, by name, without
/// compute-sanitizer or a GPU.
fn sanitizer_catches(race: Race) -> Option<Trial> {
    let recorded = race.sanitizer.clone()?;
    let tool = recorded.split(':').next()?.trim().to_string();
    if tool == "nothing" {
        return None;
    }
    let name = format!("race::sanitize::{}", race.file);
    let Some(runner) = SANITIZED.as_ref() else {
        return Some(
            Trial::test(name, || Ok(()))
                .with_kind("skipped: no compute-sanitizer here")
                .with_ignored_flag(true),
        );
    };
    Some(trial(name, Lang::Cuda, true, move || {
        let book = load(&root())?;
        let fixture = Fixture::load(&book, &race.file)?;
        let report = runner.run_on(
            BackendKind::Cuda,
            book.find(&race.puzzle)?,
            Variant::File,
            &fixture.source,
            &Case::teaching(),
        )?;
        let wanted = format!("compute-sanitizer {tool}");
        let found = report
            .diagnostics
            .iter()
            .any(|d| d.file == fixture.path && d.message.contains(&wanted));
        if found && report.status == Status::Fail {
            Ok(())
        } else {
            Err(format!("no {wanted} report at {}:\n{}", race.file, report.to_text()).into())
        }
    }))
}

/// `race::sim::{file}`: the checker of its language (`kind`) fails the race
/// fixture on every run, with a hazard at the fixture's own file and line,
/// whatever the outputs; where races.toml names the `checker`'s finding, that
/// finding at a line holding one of its `at` texts.
fn sim_catches(race: &Race, kind: BackendKind) -> Trial {
    let race = race.clone();
    Trial::test(format!("race::sim::{}", race.file), move || {
        let file = &race.file;
        let book = load(&root())?;
        let fixture = Fixture::load(&book, file)?;
        let report =
            race_fails(&race, &book, kind)?.ok_or_else(|| format!("{file} passed on sim"))?;
        messages::check(
            &format!("race::sim::{file}"),
            &format!("the race {file} on {}, its first failing run", race.puzzle),
            kind,
            &report,
        );
        // The finding the table names, at one of its lines.
        if let Some(label) = &race.checker {
            if race.at.is_empty() {
                return Err(format!("races.toml: {file} names a `checker` but no `at`").into());
            }
            let lines = race
                .at
                .iter()
                .map(|text| fixture.line_holding(text))
                .collect::<Result<Vec<usize>, Failed>>()?;
            let found = report.diagnostics.iter().any(|d| {
                d.file == fixture.path
                    && lines.contains(&d.line)
                    && d.kind.is_some_and(|k| k.label() == label)
            });
            if !found {
                return Err(format!(
                    "{file}: expected a {label:?} from the checker at line {lines:?} \
                     (holding {:?}), got:\n{}",
                    race.at,
                    report.to_text()
                )
                .into());
            }
        }
        let hazard = report
            .diagnostics
            .iter()
            .find(|d| d.file == fixture.path && d.line > 0);
        match hazard {
            Some(_) => Ok(()),
            None => Err(format!(
                "{file} failed on sim, but no hazard names its line:\n{}",
                report.to_text()
            )
            .into()),
        }
    })
    .with_kind("sim")
}
