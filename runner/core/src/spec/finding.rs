//! The kinds of mistake a run can show, as data: a debugging case's spec
//! states the one its kernel as given must show (`bug: race`), and
//! `judge::detect` reads them off a run's report.

use serde::{Deserialize, Serialize};
use std::fmt;

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
    /// The kernel never finished: stopped at the time limit, at the line
    /// its threads were running (an endless loop, a wait nothing ends).
    Hang,
}

impl Finding {
    /// Every finding, in the order the debugging chapter teaches them.
    pub const ALL: [Finding; 9] = [
        Finding::Unwritten,
        Finding::Wrong,
        Finding::OutOfBounds,
        Finding::Race,
        Finding::Uninitialized,
        Finding::DivergentBarrier,
        Finding::DivergentSubgroup,
        Finding::TooMuchTraffic,
        Finding::Hang,
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
            Finding::Hang => "hang",
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
            Finding::Hang => "a kernel that never finishes",
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_read_back_as_the_spec_spells_them() {
        for finding in Finding::ALL {
            let yaml = format!("\"{}\"", finding.name());
            let back: Finding = serde_json::from_str(&yaml).unwrap();
            assert_eq!(back, finding);
        }
    }
}
