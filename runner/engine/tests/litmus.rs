//! Litmus tests of the memory model: small kernels from the shapes of the
//! PTX ISA's memory-model chapter (message passing, store and load
//! buffering, locks, scopes, asynchronous copies, blocks that wait on each
//! other), each with the verdict the ISA gives it, run on the CUDA checker.
//! The table is `fixtures/litmus_book/litmus.toml`; the kernels and their
//! specs are the chapters of `fixtures/litmus_book`.

use libtest_mimic::{Failed, Trial};
use puzzle_core::assess::cases::Case;
use puzzle_core::assess::execute::Settings;
use puzzle_core::backend_contract::backend::BackendKind;
use puzzle_core::chapter::book::Book;
use puzzle_core::judge::report::{HAZARDS_ONLY, Status};
use puzzle_core::kernel::cut::Variant;
use puzzle_core::lang::Lang;
use runner::run::Runner;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

static RUNNER: LazyLock<Runner> = LazyLock::new(|| {
    Runner::new(Settings {
        timing_samples: 0,
        timeout: std::time::Duration::from_secs(20),
        ..Settings::default()
    })
});

/// One entry of `litmus.toml`.
#[derive(Clone, serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Litmus {
    id: String,
    /// "race-free", or the label of the finding the checker must report.
    verdict: String,
    /// The finding is at the line holding one of these texts.
    #[serde(default)]
    at: Vec<String>,
    /// Words the finding must hold: the rule it names.
    #[serde(default)]
    says: Option<String>,
    /// Why, in the ISA's terms (for the reader of the table).
    #[allow(dead_code)]
    clause: String,
}

#[derive(serde::Deserialize)]
struct Table {
    litmus: Vec<Litmus>,
}

fn book_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/litmus_book")
}

fn table() -> Vec<Litmus> {
    let path = book_root().join("litmus.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    toml::from_str::<Table>(&text)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .litmus
}

fn load() -> Result<Book, Failed> {
    runner::book::load(&book_root()).map_err(|e| format!("{e:?}").into())
}

pub fn trials() -> Vec<Trial> {
    let mut trials: Vec<Trial> = table()
        .into_iter()
        .map(|case| {
            let name = format!("litmus::{}", case.id);
            match RUNNER.backend(BackendKind::PtxSim) {
                Ok(_) => Trial::test(name, move || judge(&case)).with_kind("sim"),
                Err(e) => Trial::test(name, || Ok(()))
                    .with_kind(format!("skipped: {e}"))
                    .with_ignored_flag(true),
            }
        })
        .collect();
    // Every puzzle of the book has its verdict, and every verdict its puzzle.
    trials.push(Trial::test("litmus::table_covers_the_book", || {
        let book = load()?;
        let ids: Vec<String> = table().into_iter().map(|l| l.id).collect();
        let puzzles: Vec<String> = book.puzzles.iter().map(|p| p.id().to_string()).collect();
        let missing: Vec<&String> = puzzles.iter().filter(|p| !ids.contains(p)).collect();
        let stray: Vec<&String> = ids.iter().filter(|i| !puzzles.contains(i)).collect();
        if missing.is_empty() && stray.is_empty() {
            Ok(())
        } else {
            Err(format!("no verdict for {missing:?}; no puzzle for {stray:?}").into())
        }
    }));
    trials
}

/// Runs one litmus test's kernel on the checker and holds it to its verdict.
fn judge(case: &Litmus) -> Result<(), Failed> {
    let book = load()?;
    let puzzle = book.find(&case.id)?;
    let kernel = puzzle.require_kernel(Lang::Cuda)?;
    let source = kernel.variant(Variant::Solution);
    let report = RUNNER.run_on(
        BackendKind::PtxSim,
        puzzle,
        Variant::Solution,
        &source,
        &Case::teaching(),
    )?;
    let text = report.to_text();
    if case.verdict == "race-free" {
        if report.status != Status::Pass {
            return Err(format!("{}: the ISA calls it race-free; got:\n{text}", case.id).into());
        }
        if puzzle.spec.raw.expect.is_empty()
            && !report
                .message
                .as_deref()
                .is_some_and(|m| m.starts_with(HAZARDS_ONLY))
        {
            return Err(format!(
                "{}: a spec without `expect` must say it checked hazards only:\n{text}",
                case.id
            )
            .into());
        }
        return Ok(());
    }
    // The line of each `at` text, as the diagnostics name it.
    let mut places = Vec::new();
    for at in &case.at {
        let hits: Vec<usize> = source
            .text
            .lines()
            .enumerate()
            .filter(|(_, l)| l.contains(at.as_str()))
            .map(|(i, _)| i)
            .collect();
        let [i] = hits[..] else {
            return Err(format!("{}: {} lines hold {at:?}; name one", case.id, hits.len()).into());
        };
        let origin = &source.lines[i];
        places.push((origin.file.clone(), origin.line));
    }
    let found = report.diagnostics.iter().find(|d| {
        places.iter().any(|(f, l)| *f == d.file && *l == d.line)
            && d.kind.is_some_and(|k| k.label() == case.verdict)
    });
    let Some(found) = found else {
        return Err(format!(
            "{}: expected a {:?} at the line holding {:?}; got:\n{text}",
            case.id, case.verdict, case.at
        )
        .into());
    };
    if let Some(says) = &case.says
        && !found.message.contains(says.as_str())
    {
        return Err(format!(
            "{}: the finding should say {says:?}; it says:\n{found}",
            case.id
        )
        .into());
    }
    if report.status == Status::Pass {
        return Err(format!("{}: a finding, yet a PASS:\n{text}", case.id).into());
    }
    Ok(())
}
