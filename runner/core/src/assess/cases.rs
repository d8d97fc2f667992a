//! The sizes a kernel is checked at: the chapter's own (the teaching size),
//! then each stress case of its spec (other sizes, random inputs, expected
//! values from the CPU reference), and the loop that runs them in order.
//!
//! Every front end that checks a kernel at more than one size (the learner's
//! `check`, `runner run --stress`, the negative fixtures, the browser) takes
//! its cases and its loop from here.

use crate::judge::report::{RunReport, Status};
use crate::source::diag::Located;
use crate::spec::expr::Constants;
use crate::spec::resolve::PuzzleSpec;
use serde::Serialize;

/// Which size a run was made at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Stage {
    /// The chapter's size and inputs.
    Teaching,
    /// A spec stress case: other sizes, random inputs, CPU reference.
    Stress,
}

/// One size to run at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Case {
    pub stage: Stage,
    /// The constants a stress case changes (none at the teaching size).
    pub overrides: Option<Constants>,
    /// The chapter line that declares a stress case, for messages about it.
    pub line: Option<usize>,
}

impl Case {
    pub fn teaching() -> Case {
        Case {
            stage: Stage::Teaching,
            overrides: None,
            line: None,
        }
    }

    /// The sizes a learner asks for (`runner run --set`): random inputs and
    /// the CPU reference, as a stress case, but declared by no spec line.
    pub fn at(overrides: Constants) -> Case {
        Case {
            stage: Stage::Stress,
            overrides: Some(overrides),
            line: None,
        }
    }

    /// Every constant of `spec` as this case sets it.
    pub fn constants(&self, spec: &PuzzleSpec) -> Constants {
        let mut all = spec.raw.constants.clone();
        all.extend(self.overrides.clone().unwrap_or_default());
        all
    }

    /// "SIZE=7, TPB=4": the constants this case changes.
    pub fn label(&self) -> String {
        let parts: Vec<String> = self
            .overrides
            .iter()
            .flatten()
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        parts.join(", ")
    }
}

/// The teaching size, then (with `stress`) every stress case of `spec`.
pub fn cases(spec: &PuzzleSpec, stress: bool) -> Vec<Case> {
    let mut all = vec![Case::teaching()];
    if stress {
        all.extend(spec.raw.stress.iter().map(|c| Case {
            stage: Stage::Stress,
            overrides: Some(c.value.clone()),
            line: Some(spec.origin.first_line + c.referenced.line() as usize - 1),
        }));
    }
    all
}

/// Launches up to this many invocations are run on the CPU checker. It
/// interprets every invocation, so a stress size past this (a hundred
/// thousand invocations, each looping over thousands of elements) could
/// take it longer than the time limit although the kernel is right; such
/// sizes are left to a GPU (or lavapipe), and the check says so.
pub const CHECKER_INVOCATIONS: u64 = 1 << 16;

/// The most invocations one launch of `case` has, where its sizes resolve.
pub fn invocations(spec: &PuzzleSpec, case: &Case) -> Option<u64> {
    let overrides = case.overrides.clone().unwrap_or_default();
    let sized = spec.sized(&overrides).ok()?;
    sized.launches.iter().map(|l| l.total_threads()).max()
}

/// Whether the CPU checker runs `case` in good time.
pub fn checkable(spec: &PuzzleSpec, case: &Case) -> bool {
    invocations(spec, case).is_none_or(|n| n <= CHECKER_INVOCATIONS)
}

/// The cases the CPU checker runs (the teaching size always), and the
/// stress sizes it leaves to a GPU.
pub fn for_checker(spec: &PuzzleSpec) -> (Vec<Case>, Vec<Case>) {
    cases(spec, true)
        .into_iter()
        .partition(|case| case.stage == Stage::Teaching || checkable(spec, case))
}

/// When [`run_cases`] stops.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// After the first run that does not pass (a learner's check).
    FirstFailure,
    /// Never: every case runs (`runner run --stress` prints them all).
    All,
}

/// Runs `cases` in order through `run`, each with its report.
pub fn run_cases(
    cases: Vec<Case>,
    until: Until,
    mut run: impl FnMut(&Case) -> Result<RunReport, Located>,
) -> Result<Vec<(Case, RunReport)>, Located> {
    let mut done = Vec::new();
    for case in cases {
        let report = run(&case)?;
        let stop = until == Until::FirstFailure && report.status != Status::Pass;
        done.push((case, report));
        if stop {
            break;
        }
    }
    Ok(done)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::Path;

    const SPEC: &str = "id: p\ntitle: t\nkernel: k\nreference: p01_map\nconst: { SIZE: 4 }\n\
grid: [1]\nblock: [SIZE]\nbuffers:\n  out: { len: SIZE, output: true }\n  a: { len: SIZE, init: arange }\n\
args: [out, a]\nexpect:\n  out: [10, 11, 12, 13]\nstress:\n  - { SIZE: 7 }\n  - { SIZE: 9 }\n";

    /// (stress?, until, the statuses the runs give, the cases that ran)
    #[test]
    fn runs_in_order_and_stops_where_asked() {
        let spec = PuzzleSpec::parse(SPEC, Path::new("c.md"), 1).expect("parses");
        let cases_table = [
            (false, Until::All, vec![Status::Pass], vec![""]),
            (
                true,
                Until::All,
                vec![Status::Pass, Status::Fail, Status::Pass],
                vec!["", "SIZE=7", "SIZE=9"],
            ),
            (
                true,
                Until::FirstFailure,
                vec![Status::Pass, Status::Fail, Status::Pass],
                vec!["", "SIZE=7"],
            ),
        ];
        for (stress, until, statuses, want) in cases_table {
            let mut next = statuses.into_iter();
            let ran = run_cases(cases(&spec, stress), until, |_| {
                let mut report: RunReport = serde_json::from_str(
                    r#"{"puzzle":"p","lang":"wgsl","variant":"file","backend":"sim","device":null,"status":"pass","diagnostics":[],"message":null,"timing":null,"checks":[]}"#,
                )
                .expect("a report");
                report.status = next.next().expect("a status");
                Ok(report)
            })
            .expect("runs");
            let labels: Vec<String> = ran.iter().map(|(c, _)| c.label()).collect();
            assert_eq!(labels, want, "{stress} {until:?}");
        }
        assert_eq!(
            cases(&spec, true)[1].constants(&spec),
            Constants::from([("SIZE".to_string(), 7)])
        );
        // `- { SIZE: 9 }` is the spec's 16th line.
        assert_eq!(cases(&spec, true)[2].line, Some(16));
    }

    /// (stress sizes, the ones the checker runs, the ones it leaves to a GPU)
    #[test]
    fn the_checker_leaves_sizes_past_its_reach_to_a_gpu_table() {
        let table = [
            ("{ SIZE: 7 }", vec!["", "SIZE=7"], vec![]),
            ("{ SIZE: 65536 }", vec!["", "SIZE=65536"], vec![]),
            ("{ SIZE: 65537 }", vec![""], vec!["SIZE=65537"]),
        ];
        for (stress, run, left) in table {
            let text = SPEC.replace(
                "  - { SIZE: 7 }\n  - { SIZE: 9 }\n",
                &format!("  - {stress}\n"),
            );
            let spec = PuzzleSpec::parse(&text, Path::new("c.md"), 1).expect("parses");
            let (ran, beyond) = for_checker(&spec);
            let labels = |cases: &[Case]| cases.iter().map(Case::label).collect::<Vec<_>>();
            assert_eq!(
                (labels(&ran), labels(&beyond)),
                (
                    run.iter().map(|s| s.to_string()).collect(),
                    left.iter().map(|s: &&str| s.to_string()).collect()
                ),
                "{stress}"
            );
        }
    }
}
