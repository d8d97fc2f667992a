//! The kinds of finding a checker reports, and the label each message
//! starts with ("data race: …"), the same words in both languages.

use serde::{Deserialize, Serialize};

/// One kind of hazard a checker reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// Two conflicting accesses that nothing orders (and, in CUDA, that
    /// are not both strong and morally strong).
    Race,
    OutOfBounds,
    /// A read of shared memory, or of an output, that nothing wrote.
    Uninitialized,
    /// A barrier that part of a block (workgroup) never reaches.
    DivergentBarrier,
    /// A subgroup or warp operation whose lanes disagree with its mask or
    /// with the lanes that reach it.
    DivergentSubgroup,
    /// Threads that wait for something that can never happen (CUDA: a
    /// barrier, an mbarrier phase, a flag, a block that cannot start).
    Deadlock,
}

impl Kind {
    /// Every kind, in the order reports list them.
    pub const ALL: [Kind; 6] = [
        Kind::Race,
        Kind::OutOfBounds,
        Kind::Uninitialized,
        Kind::DivergentBarrier,
        Kind::DivergentSubgroup,
        Kind::Deadlock,
    ];

    /// The words a message of this kind starts with.
    pub fn label(self) -> &'static str {
        match self {
            Kind::Race => "data race",
            Kind::OutOfBounds => "out-of-bounds index",
            Kind::Uninitialized => "uninitialized read",
            Kind::DivergentBarrier => "barrier in non-uniform control flow",
            Kind::DivergentSubgroup => "subgroup operation in non-uniform control flow",
            Kind::Deadlock => "deadlock",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Labels are distinct and none starts another (a reader scanning a
    /// report by eye must not confuse two kinds).
    #[test]
    fn labels_are_distinct_table() {
        for a in Kind::ALL {
            for b in Kind::ALL.into_iter().filter(|&b| b != a) {
                assert!(!a.label().starts_with(b.label()), "{a:?} and {b:?}");
            }
        }
    }
}
