//! The language a learner's command works in when the learner names none.
//!
//! One rule for `check`, `check --all` and `watch`, so that they never
//! disagree: among the languages this machine can run (all of the puzzle's,
//! if it runs none), the language of the copy the learner changed last:
//! of this puzzle if they changed one, else of any puzzle; WGSL when they
//! have changed nothing. A copy still equal to its skeleton counts as
//! unchanged, so the order in which the workspace created the copies never
//! decides.

use puzzle_core::lang::Lang;
use std::time::SystemTime;

/// What the choice is made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Facts {
    /// The languages there are kernels in: the puzzle's, or, before a
    /// puzzle is chosen, every language.
    pub offered: Vec<Lang>,
    /// Those this machine can run, not only compile.
    pub runnable: Vec<Lang>,
    /// When the learner last saved a changed copy of this puzzle, by language.
    pub changed_here: Vec<(Lang, SystemTime)>,
    /// The language of the changed copy saved last, of any puzzle.
    pub changed_last: Option<Lang>,
}

/// The language to work in, or `None` when nothing is offered.
pub fn default_lang(facts: &Facts) -> Option<Lang> {
    let runnable: Vec<Lang> = facts
        .offered
        .iter()
        .copied()
        .filter(|l| facts.runnable.contains(l))
        .collect();
    // Without a language that runs here, a compile-only check still says something.
    let pool = if runnable.is_empty() {
        &facts.offered
    } else {
        &runnable
    };
    let here = facts
        .changed_here
        .iter()
        .filter(|(l, _)| pool.contains(l))
        .max_by_key(|&&(_, at)| at)
        .map(|&(l, _)| l);
    here.or(facts.changed_last.filter(|l| pool.contains(l)))
        .or(pool.contains(&Lang::Wgsl).then_some(Lang::Wgsl))
        .or(pool.first().copied())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    const W: Lang = Lang::Wgsl;
    const C: Lang = Lang::Cuda;

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000 + seconds)
    }

    /// (case, offered, runnable, changed here (lang, second), changed last anywhere, chosen)
    #[test]
    fn the_rule_table() {
        type Case = (
            &'static str,
            &'static [Lang],
            &'static [Lang],
            &'static [(Lang, u64)],
            Option<Lang>,
            Option<Lang>,
        );
        let cases: &[Case] = &[
            (
                "nothing changed: WGSL",
                &[C, W],
                &[C, W],
                &[],
                None,
                Some(W),
            ),
            (
                "CUDA changed here",
                &[C, W],
                &[C, W],
                &[(C, 5)],
                None,
                Some(C),
            ),
            (
                "both changed here: the later",
                &[C, W],
                &[C, W],
                &[(C, 5), (W, 9)],
                Some(C),
                Some(W),
            ),
            (
                "this puzzle's change beats one elsewhere",
                &[C, W],
                &[C, W],
                &[(W, 5)],
                Some(C),
                Some(W),
            ),
            (
                "untouched puzzle: the language changed last anywhere",
                &[C, W],
                &[C, W],
                &[],
                Some(C),
                Some(C),
            ),
            (
                "CUDA cannot run here: WGSL despite the CUDA changes",
                &[C, W],
                &[W],
                &[(C, 9)],
                Some(C),
                Some(W),
            ),
            (
                "a CUDA-only puzzle on a machine without a GPU: CUDA, to compile",
                &[C],
                &[W],
                &[],
                Some(W),
                Some(C),
            ),
            (
                "a WGSL-only puzzle for a CUDA learner",
                &[W],
                &[C, W],
                &[],
                Some(C),
                Some(W),
            ),
            (
                "nothing runs here: the change still decides",
                &[C, W],
                &[],
                &[(C, 1)],
                None,
                Some(C),
            ),
            ("no kernel at all", &[], &[C, W], &[], Some(C), None),
        ];
        for (name, offered, runnable, changed_here, changed_last, want) in cases {
            let facts = Facts {
                offered: offered.to_vec(),
                runnable: runnable.to_vec(),
                changed_here: changed_here.iter().map(|&(l, s)| (l, at(s))).collect(),
                changed_last: *changed_last,
            };
            assert_eq!(default_lang(&facts), *want, "{name}");
        }
    }
}
