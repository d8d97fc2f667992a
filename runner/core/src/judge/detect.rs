//! Which kinds of mistake a run's report shows ([`Finding`]s), read off its
//! judged buffers and its diagnostics: the debugging cases are held to the
//! one their spec states.

use crate::judge::report::{RunReport, TOO_MUCH_TRAFFIC};
use crate::spec::finding::Finding;
use gpu_hazard::Kind;

/// The checker's hazard this finding is, where it is one.
fn hazard(finding: Finding) -> Option<Kind> {
    match finding {
        Finding::OutOfBounds => Some(Kind::OutOfBounds),
        Finding::Race => Some(Kind::Race),
        Finding::Uninitialized => Some(Kind::Uninitialized),
        Finding::DivergentBarrier => Some(Kind::DivergentBarrier),
        Finding::DivergentSubgroup => Some(Kind::DivergentSubgroup),
        _ => None,
    }
}

impl RunReport {
    /// Every kind of mistake this report shows, each once, in
    /// [`Finding::ALL`]'s order: from the judged buffers and from the
    /// diagnostics (the checker's hazards by their kind, the access
    /// bound's by its own phrase).
    pub fn findings(&self) -> Vec<Finding> {
        let checks = || self.checks.iter();
        let diagnosed = |kind: Kind| self.diagnostics.iter().any(|d| d.kind == Some(kind));
        let said = |prefix: &str| {
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
                    checks().any(|c| !c.out_of_bounds.is_empty()) || diagnosed(Kind::OutOfBounds)
                }
                Finding::TooMuchTraffic => said(TOO_MUCH_TRAFFIC),
                Finding::Hang => self
                    .error
                    .as_ref()
                    .is_some_and(|e| e.hang_limit().is_some()),
                other => hazard(other).is_some_and(diagnosed),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend_contract::backend::BackendKind;
    use crate::judge::report::Status;
    use crate::judge::verify::BufferCheck;
    use crate::kernel::cut::Variant;
    use crate::lang::Lang;
    use crate::source::diag::Located;

    fn report(check: BufferCheck, diagnostics: &[Located]) -> RunReport {
        RunReport {
            puzzle: "p".into(),
            lang: Lang::Wgsl,
            variant: Variant::Skeleton,
            backend: BackendKind::Sim,
            device: None,
            status: Status::Fail,
            diagnostics: diagnostics.to_vec(),
            message: None,
            error: None,
            checks: vec![check],
            timing: None,
            access: None,
            accesses: None,
            printed: String::new(),
        }
    }

    fn check(wrong: &[usize], unwritten: &[usize], outside: &[i64], judged: bool) -> BufferCheck {
        BufferCheck {
            name: "out".into(),
            dtype: crate::spec::data::Dtype::F32,
            tolerance: None,
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
        let at = |m: &str| Located::new("k.wgsl", 3, m);
        let race = at("data race: invocations 1 and 2 ...").with_kind(Kind::Race);
        let barrier = at("this barrier ...").with_kind(Kind::DivergentBarrier);
        let traffic = at(&format!(
            "{TOO_MUCH_TRAFFIC}: thread 3 read global memory 3 times"
        ));
        // A message that only reads like a finding is none: kinds are fields.
        let lookalike = at("data race: said by someone else");
        let cases: Vec<(BufferCheck, Vec<Located>, Vec<Finding>)> = vec![
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
                vec![race, barrier],
                vec![Race, DivergentBarrier],
            ),
            (
                check(&[], &[], &[], true),
                vec![traffic],
                vec![TooMuchTraffic],
            ),
            // A compiler's message is no finding.
            (check(&[], &[], &[], true), vec![at("expected `;`")], vec![]),
            (check(&[], &[], &[], true), vec![lookalike], vec![]),
        ];
        for (check, diagnostics, want) in cases {
            assert_eq!(
                report(check, &diagnostics).findings(),
                want,
                "{diagnostics:?}"
            );
        }
    }
}
