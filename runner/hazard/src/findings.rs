//! What a checked run found besides its buffers, the same in both
//! languages: the findings (capped), the counts of global-memory accesses,
//! which elements of a poisoned buffer were stored to, and who touched
//! what where a trace was asked for.

use crate::{AccessReport, AccessTrace, Hazard, Hazards};

/// A checked run's findings, `T` naming a thread and `P` a place in the
/// kernel as each language does.
#[derive(Debug, Clone, PartialEq)]
pub struct Findings<T, P> {
    /// The hazards, one per kind and line, causes before the uninitialized
    /// reads they leave.
    pub hazards: Vec<Hazard<P>>,
    /// Hazards beyond the reporting cap, not kept.
    pub dropped: usize,
    pub access: AccessReport<T, P>,
    /// For each poisoned buffer, in the order given, whether each element
    /// was stored to (empty for other buffers): an element that still holds
    /// poison although written was computed from the poison.
    pub written: Vec<Vec<bool>>,
    /// Who touched which element, where the run asked for it.
    pub trace: Option<AccessTrace>,
}

impl<T, P: Clone> Findings<T, P> {
    /// The findings of a run that has ended.
    pub fn new(
        hazards: &Hazards<P>,
        access: AccessReport<T, P>,
        written: Vec<Vec<bool>>,
        trace: Option<AccessTrace>,
    ) -> Findings<T, P> {
        Findings {
            hazards: hazards.list().to_vec(),
            dropped: hazards.dropped,
            access,
            written,
            trace,
        }
    }
}
