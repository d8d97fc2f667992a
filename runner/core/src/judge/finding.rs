//! What kind of mistake a run's report shows, as data: the debugging cases
//! state the one their kernel as given must show, and the checks hold them
//! to it.

use crate::judge::report::{RunReport, TOO_MUCH_TRAFFIC};
use serde::{Deserialize, Serialize};
use std::fmt;
use wgsl_sim::hazard::Kind;

/// One kind of mistake a report can show; a report may show several.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Finding {
    /// Output elements that still hold the poison: no thread wrote them.
    Unwritten,
    /// Output elements written with the wrong value.
    Wrong,
    /// A write past a buffer's end (a guard band), or an index the checker
    /// saw outside its buffer.
    OutOfBounds,
    /// Two invocations touched one location with no barrier between, and
    /// at least one of them wrote it.
    Race,
    /// A read of memory nothing had written.
    Uninitialized,
    /// A barrier that only some invocations of a workgroup reached.
    DivergentBarrier,
    /// A subgroup operation that only some lanes reached.
    DivergentSubgroup,
    /// A thread over the puzzle's bound on global-memory accesses.
    TooMuchTraffic,
}

impl Finding {
    /// Every finding, in the order the debugging chapter teaches them.
    pub const ALL: [Finding; 8] = [
        Finding::Unwritten,
        Finding::Wrong,
        Finding::OutOfBounds,
        Finding::Race,
        Finding::Uninitialized,
        Finding::DivergentBarrier,
        Finding::DivergentSubgroup,
        Finding::TooMuchTraffic,
    ];

    /// The spec's spelling, e.g. `out_of_bounds`.
    pub fn name(self) -> &'static str {
        match self {
            Finding::Unwritten => "unwritten",
            Finding::Wrong => "wrong",
            Finding::OutOfBounds => "out_of_bounds",
            Finding::Race => "race",
            Finding::Uninitialized => "uninitialized",
            Finding::DivergentBarrier => "divergent_barrier",
            Finding::DivergentSubgroup => "divergent_subgroup",
            Finding::TooMuchTraffic => "too_much_traffic",
        }
    }

    /// The checker's hazard this finding is, where it is one.
    fn hazard(self) -> Option<Kind> {
        match self {
            Finding::OutOfBounds => Some(Kind::OutOfBounds),
            Finding::Race => Some(Kind::Race),
            Finding::Uninitialized => Some(Kind::Uninitialized),
            Finding::DivergentBarrier => Some(Kind::DivergentBarrier),
            Finding::DivergentSubgroup => Some(Kind::DivergentSubgroup),
            _ => None,
        }
    }
}

impl fmt::Display for Finding {
    /// As a sentence reads it: "a data race", "elements never written".
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Finding::Unwritten => "output elements never written",
            Finding::Wrong => "wrong values",
            Finding::OutOfBounds => "an access out of bounds",
            Finding::Race => "a data race",
            Finding::Uninitialized => "an uninitialized read",
            Finding::DivergentBarrier => "a barrier in non-uniform control flow",
            Finding::DivergentSubgroup => "a subgroup operation in non-uniform control flow",
            Finding::TooMuchTraffic => "too much global memory traffic",
        })
    }
}

impl RunReport {
    /// Every kind of mistake this report shows, each once, in
    /// [`Finding::ALL`]'s order: from the judged buffers and from the
    /// diagnostics (the checker's hazards begin with their label, the
    /// access bound's with its own phrase).
    pub fn findings(&self) -> Vec<Finding> {
        let checks = || self.checks.iter();
        let diagnosed = |prefix: &str| {
            self.diagnostics
                .iter()
                .any(|d| d.message.starts_with(prefix))
        };
        Finding::ALL
            .into_iter()
            .filter(|&finding| match finding {
                Finding::Unwritten => checks().any(|c| c.judged && !c.unwritten.is_empty()),
                Finding::Wrong => checks().any(|c| {
                    c.judged
                        && (!c.wrong.is_empty()
                            || c.from_poison.as_ref().is_some_and(|p| !p.is_empty()))
                }),
                Finding::OutOfBounds => {
                    checks().any(|c| !c.out_of_bounds.is_empty())
                        || diagnosed(Kind::OutOfBounds.label())
                }
                Finding::TooMuchTraffic => diagnosed(TOO_MUCH_TRAFFIC),
                other => other.hazard().is_some_and(|k| diagnosed(k.label())),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::report::Status;
    use crate::judge::verify::BufferCheck;
    use crate::kernel::cut::Variant;
    use crate::lang::Lang;
    use crate::run::backend::BackendKind;
    use crate::source::diag::Located;

    fn report(check: BufferCheck, diagnostics: &[&str]) -> RunReport {
        RunReport {
            puzzle: "p".into(),
            lang: Lang::Wgsl,
            variant: Variant::Skeleton,
            backend: BackendKind::Sim,
            device: None,
            status: Status::Fail,
            diagnostics: diagnostics
                .iter()
                .map(|m| Located::new("k.wgsl", 3, *m))
                .collect(),
            message: None,
            error: None,
            checks: vec![check],
            timing: None,
            access: None,
            accesses: None,
        }
    }

    fn check(wrong: &[usize], unwritten: &[usize], outside: &[i64], judged: bool) -> BufferCheck {
        BufferCheck {
            name: "out".into(),
            shape: vec![4],
            got: vec![Some(0.0); 4],
            expected: vec![0.0; 4],
            wrong: wrong.to_vec(),
            unwritten: unwritten.to_vec(),
            from_poison: None,
            out_of_bounds: outside.to_vec(),
            judged,
            abridged: None,
        }
    }

    #[test]
    fn findings_table() {
        use Finding::*;
        let race = format!("{}: invocations 1 and 2 ...", Kind::Race.label());
        let barrier = format!("{}: this barrier ...", Kind::DivergentBarrier.label());
        let traffic = format!("{TOO_MUCH_TRAFFIC}: thread 3 read global memory 3 times");
        let cases: Vec<(BufferCheck, Vec<&str>, Vec<Finding>)> = vec![
            (check(&[], &[], &[], true), vec![], vec![]),
            (
                check(&[1], &[2, 3], &[], true),
                vec![],
                vec![Unwritten, Wrong],
            ),
            // An input's buffer is not judged on its values, only its guard bands.
            (check(&[1], &[2], &[4], false), vec![], vec![OutOfBounds]),
            (
                check(&[], &[], &[], true),
                vec![&race, &barrier],
                vec![Race, DivergentBarrier],
            ),
            (
                check(&[], &[], &[], true),
                vec![&traffic],
                vec![TooMuchTraffic],
            ),
            // A compiler's message is no finding.
            (check(&[], &[], &[], true), vec!["expected `;`"], vec![]),
        ];
        for (check, diagnostics, want) in cases {
            assert_eq!(
                report(check, &diagnostics).findings(),
                want,
                "{diagnostics:?}"
            );
        }
    }

    #[test]
    fn names_read_back_as_the_spec_spells_them() {
        for finding in Finding::ALL {
            let yaml = format!("\"{}\"", finding.name());
            let back: Finding = serde_json::from_str(&yaml).unwrap();
            assert_eq!(back, finding);
        }
    }
}
