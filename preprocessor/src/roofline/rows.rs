//! The rows of a roofline block: each puzzle at its teaching size or at
//! each of its `bench` cases, with its figures on one recorded GPU.

use puzzle_core::chapter::puzzle::Puzzle;
use puzzle_core::kernel::cut::Variant;
use puzzle_core::source::diag::Located;
use puzzle_core::spec::expr::Constants;
use puzzle_core::spec::model::Spec;
use runner::perf::record::{self, BenchUnusable, Recorded, Recording};
use runner::perf::roofline::{self, Placement};
use runner::perf::{BenchReport, Ceilings, RooflineBlock, Sizes};

/// Why a row has no placement under a GPU's ceilings; its table cell says so.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unplaced {
    /// At the teaching size: the recording has no current run of the solution.
    #[error("no current recording")]
    NoRecording,
    /// At a bench size: the recording has no such benchmark.
    #[error("not benchmarked on this GPU")]
    NotBenchmarked,
    /// At the teaching size: the kernel or spec changed on a day this GPU
    /// could not be reached (`results/awaiting.toml`).
    #[error("not run on this GPU since the kernel changed on {0}")]
    Awaiting(String),
    #[error(transparent)]
    Bench(#[from] BenchUnusable),
}

impl Unplaced {
    /// The day the kernel changed, when the row has no figure because its
    /// GPU has not run the new version (`results/awaiting.toml`).
    pub fn awaiting(&self) -> Option<&str> {
        match self {
            Unplaced::Awaiting(changed) | Unplaced::Bench(BenchUnusable::Awaiting(changed)) => {
                Some(changed)
            }
            _ => None,
        }
    }
}

/// Why a puzzle of a ```roofline block has no rows.
#[derive(Debug, thiserror::Error)]
pub enum ShownError {
    /// The spec does not resolve at the size shown.
    #[error(transparent)]
    Spec(#[from] Located),
    #[error("```roofline block: `{0}` has no `bench` size in its spec")]
    NoBenchSize(String),
}

/// One puzzle at one size, as the block shows it.
pub struct Shown<'a> {
    pub puzzle: &'a Puzzle,
    /// The `bench` case (its constants), or `None` at the teaching size.
    pub case: Option<Constants>,
    pub spec: Spec,
    /// The puzzle's first `bench` case, the one targets refer to.
    pub headline: bool,
}

/// One puzzle's figures at one size on one recorded GPU.
pub struct Row {
    pub id: String,
    /// "SIZE=2^27, BLOCKS=1056" at bench sizes.
    pub sizes: Option<String>,
    /// The bench case's constants.
    pub case: Option<Constants>,
    pub headline: bool,
    pub flops: Option<u64>,
    pub bytes: u64,
    /// The shapes of the buffers the problem is made of (scratch left out),
    /// sorted: two rows with the same shapes solved the same problem, whatever
    /// their tile constants.
    pub shapes: Vec<Vec<usize>>,
    /// The placement, or why there is none.
    pub placement: Result<Placement, Unplaced>,
    /// At bench sizes: the benchmark behind the placement.
    pub bench: Option<BenchReport>,
    /// At bench sizes: the day that benchmark was taken, where the recording
    /// kept it, so that a ratio against a library can say when the two
    /// were not timed in one session.
    pub recorded_on: Option<String>,
}

/// The shapes of `spec`'s buffers, scratch left out, sorted.
pub fn problem_shapes(spec: &puzzle_core::spec::model::Spec) -> Vec<Vec<usize>> {
    let mut shapes: Vec<Vec<usize>> = spec
        .buffers()
        .filter(|b| !b.scratch)
        .map(|b| b.shape.clone())
        .collect();
    shapes.sort();
    shapes
}

/// The rows a puzzle contributes: its teaching size, or each of its `bench` cases.
pub fn shown(puzzle: &Puzzle, sizes: Sizes) -> Result<Vec<Shown<'_>>, ShownError> {
    match sizes {
        Sizes::Teaching => Ok(vec![Shown {
            puzzle,
            case: None,
            spec: puzzle.spec.resolve(&Default::default())?,
            headline: true,
        }]),
        Sizes::Bench => {
            let cases = puzzle.spec.bench_cases();
            if cases.is_empty() {
                return Err(ShownError::NoBenchSize(puzzle.id().to_string()));
            }
            cases
                .into_iter()
                .enumerate()
                .map(|(i, case)| {
                    Ok(Shown {
                        puzzle,
                        spec: puzzle.spec.sized(&case)?,
                        case: Some(case),
                        headline: i == 0,
                    })
                })
                .collect()
        }
    }
}

/// "SIZE=2^28, BLOCKS=1056": powers of two from 1024 up written as such.
pub fn case_text(case: &Constants) -> String {
    let value = |v: i64| match v {
        v if v >= 1024 && v.count_ones() == 1 => format!("2^{}", v.trailing_zeros()),
        v => v.to_string(),
    };
    let parts: Vec<String> = case
        .iter()
        .map(|(k, v)| format!("{k}={}", value(*v)))
        .collect();
    parts.join(", ")
}

pub fn row(
    shown: &Shown,
    block: &RooflineBlock,
    recording: &Recording,
    ceilings: &Ceilings,
) -> Row {
    let (puzzle, spec) = (shown.puzzle, &shown.spec);
    let (placement, bench) = match &shown.case {
        None => {
            let found = record::lookup(
                std::slice::from_ref(recording),
                puzzle,
                block.lang,
                Variant::Solution,
            );
            let placement = match found.first() {
                Some(Recorded::Current { report, .. }) => report
                    .timing
                    .as_ref()
                    .map(|t| roofline::place(spec, t.median_ms, Some(ceilings)))
                    .ok_or(Unplaced::NoRecording),
                Some(Recorded::Stale {
                    awaiting: Some(awaiting),
                    ..
                }) => Err(Unplaced::Awaiting(awaiting.changed.clone())),
                Some(Recorded::Stale { awaiting: None, .. }) | None => Err(Unplaced::NoRecording),
            };
            (placement, None)
        }
        Some(case) => match record::lookup_bench(recording, puzzle, block.lang, case) {
            None => (Err(Unplaced::NotBenchmarked), None),
            Some(Err(why)) => (Err(Unplaced::Bench(why)), None),
            Some(Ok(report)) => (
                Ok(roofline::place(
                    spec,
                    report.timing.median_ms,
                    Some(ceilings),
                )),
                Some(report.clone()),
            ),
        },
    };
    let recorded_on = shown
        .case
        .as_ref()
        .and_then(|case| record::bench_date(recording, puzzle, block.lang, case))
        .map(str::to_string);
    Row {
        id: puzzle.id().to_string(),
        sizes: shown.case.as_ref().map(case_text),
        case: shown.case.clone(),
        headline: shown.headline,
        flops: spec.flops,
        bytes: spec.min_bytes(),
        shapes: problem_shapes(spec),
        placement,
        bench,
        recorded_on,
    }
}

/// One recorded GPU's part of a block: the GPU, as the page names it in
/// full and in short, the day it was recorded, its ceilings and the block's
/// rows under them (in the block's order, the same on every GPU).
pub struct OnGpu<'a> {
    pub device: String,
    pub short: String,
    pub date: String,
    pub ceilings: &'a Ceilings,
    pub rows: Vec<Row>,
}

/// A GPU's name as a table's column header can carry it: "H100" for "NVIDIA
/// H100 80GB HBM3", "RTX 4090" for "NVIDIA GeForce RTX 4090": the vendor,
/// the brand and the memory dropped.
pub fn short_name(device: &str) -> String {
    let mut words: Vec<&str> = device.split_whitespace().collect();
    // "2 × NVIDIA H100": the count stays in front.
    let count: Vec<&str> = match words.as_slice() {
        [n, "×", ..] if n.parse::<u32>().is_ok() => words.drain(..2).collect(),
        _ => vec![],
    };
    let vendors = [
        "NVIDIA", "AMD", "Intel", "Apple", "GeForce", "Radeon", "Tesla",
    ];
    let memory = |w: &str| {
        ["GB", "HBM", "PCIe", "SXM", "NVL"]
            .iter()
            .any(|m| w.contains(m))
    };
    let kept: Vec<&str> = words
        .iter()
        .copied()
        .skip_while(|w| vendors.contains(w))
        .take_while(|w| !memory(w))
        .collect();
    let name = match kept.as_slice() {
        // "A100-SXM4-80GB": the model is its first piece.
        [] => words
            .iter()
            .find(|w| !vendors.contains(w))
            .and_then(|w| w.split('-').next())
            .unwrap_or(device)
            .to_string(),
        kept => kept.join(" "),
    };
    count
        .into_iter()
        .chain([name.as_str()])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Each GPU's short name, or the full ones where two would read the same
/// (an H100 PCIe and an H100 SXM are both "H100").
pub fn short_names(devices: &[&str]) -> Vec<String> {
    let short: Vec<String> = devices.iter().map(|d| short_name(d)).collect();
    let clash = short
        .iter()
        .enumerate()
        .any(|(i, s)| short[..i].contains(s));
    if clash {
        devices.iter().map(|d| d.to_string()).collect()
    } else {
        short
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_names_table() {
        for (device, short) in [
            ("NVIDIA H100 80GB HBM3", "H100"),
            ("NVIDIA H200", "H200"),
            ("NVIDIA GeForce RTX 4090", "RTX 4090"),
            ("NVIDIA A100-SXM4-80GB", "A100"),
            ("2 × NVIDIA H100 80GB HBM3", "2 × H100"),
            ("NVIDIA Imaginary 9000", "Imaginary 9000"),
            ("Apple M2 Max", "M2 Max"),
        ] {
            assert_eq!(short_name(device), short, "{device}");
        }
        assert_eq!(
            short_names(&["NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3"]),
            ["NVIDIA H100 PCIe", "NVIDIA H100 80GB HBM3"],
            "two H100s keep their full names"
        );
        assert_eq!(
            short_names(&["NVIDIA H100 80GB HBM3", "NVIDIA H200"]),
            ["H100", "H200"]
        );
    }
}
