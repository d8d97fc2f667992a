//! The findings of one run, capped: one wrong line repeated by every thread
//! is one problem, and a report of eight is as much as a reader takes in.

use crate::Kind;
use std::collections::BTreeSet;

/// A finding at `at`: a place in the checker's own terms (a `.loc` line
/// for PTX, a span of naga's IR for WGSL), with its message.
#[derive(Debug, Clone, PartialEq)]
pub struct Hazard<P> {
    pub kind: Kind,
    pub at: P,
    pub message: String,
}

/// Findings kept per run.
const REPORTED: usize = 8;

/// The findings of a run, one per kind and line of the caller's file (a
/// race's read and write often sit on one line: `t[i] += t[i + s]`), in
/// the order found.
#[derive(Debug)]
pub struct Hazards<P> {
    found: Vec<Hazard<P>>,
    seen: BTreeSet<(Kind, usize)>,
    /// Findings not kept because of the cap.
    pub dropped: usize,
}

impl<P> Default for Hazards<P> {
    fn default() -> Self {
        Hazards {
            found: Vec::new(),
            seen: BTreeSet::new(),
            dropped: 0,
        }
    }
}

impl<P> Hazards<P> {
    /// Whether a finding of `kind` at `line` is known already (so that its
    /// message need not be built).
    pub fn known(&self, kind: Kind, line: usize) -> bool {
        self.seen.contains(&(kind, line))
    }

    /// Adds a finding at `at`, unless one of its kind is known at `line`,
    /// the line of the caller's file that messages name.
    pub fn add(&mut self, kind: Kind, at: P, line: usize, message: String) {
        if !self.seen.insert((kind, line)) {
            return;
        }
        // A read of memory nothing wrote is most often what a race or a
        // missed barrier leaves behind: the cause is listed first, the
        // symptom after it, so a reader fixes the cause.
        let place = match kind {
            Kind::Uninitialized => self.found.len(),
            _ => self
                .found
                .iter()
                .position(|h| h.kind == Kind::Uninitialized)
                .unwrap_or(self.found.len()),
        };
        if self.found.len() == REPORTED {
            if place == REPORTED {
                self.dropped += 1;
                return;
            }
            self.found.pop();
            self.dropped += 1;
        }
        self.found.insert(place, Hazard { kind, at, message });
    }

    pub fn list(&self) -> &[Hazard<P>] {
        &self.found
    }

    pub fn is_empty(&self) -> bool {
        self.found.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One finding per kind and line; past the cap, counted as dropped.
    #[test]
    fn one_per_kind_and_line_table() {
        let mut hazards: Hazards<u32> = Hazards::default();
        // (kind, place, line, message, kept)
        let cases = [
            (Kind::Race, 1, 7, "a", true),
            (Kind::Race, 2, 7, "b", false),
            (Kind::OutOfBounds, 1, 7, "c", true),
            (Kind::Race, 1, 8, "d", true),
        ];
        for (kind, at, line, message, _) in cases {
            hazards.add(kind, at, line, message.into());
        }
        let kept: Vec<&str> = hazards.list().iter().map(|h| h.message.as_str()).collect();
        let want: Vec<&str> = cases.iter().filter(|c| c.4).map(|c| c.3).collect();
        assert_eq!(kept, want);
        assert!(hazards.known(Kind::Race, 7) && !hazards.known(Kind::Uninitialized, 7));
        for line in 100..110 {
            hazards.add(Kind::Race, 0, line, String::new());
        }
        assert_eq!((hazards.list().len(), hazards.dropped), (REPORTED, 5));
    }

    /// Causes before symptoms: an uninitialized read found first is listed
    /// after the race found later, and past the cap a cause still displaces
    /// a symptom: (kinds in the order found, the order listed).
    #[test]
    fn causes_come_before_uninitialized_reads_table() {
        use Kind::*;
        let cases: [(&[Kind], &[Kind]); 3] = [
            (&[Uninitialized, Race], &[Race, Uninitialized]),
            (
                &[Uninitialized, DivergentBarrier, Race],
                &[DivergentBarrier, Race, Uninitialized],
            ),
            (
                &[Race, Uninitialized, OutOfBounds],
                &[Race, OutOfBounds, Uninitialized],
            ),
        ];
        for (found, listed) in cases {
            let mut hazards: Hazards<u32> = Hazards::default();
            for (line, &kind) in found.iter().enumerate() {
                hazards.add(kind, 0, line, String::new());
            }
            let kinds: Vec<Kind> = hazards.list().iter().map(|h| h.kind).collect();
            assert_eq!(kinds, listed, "{found:?}");
        }
        let mut full: Hazards<u32> = Hazards::default();
        for line in 0..REPORTED {
            full.add(Uninitialized, 0, line, String::new());
        }
        full.add(Race, 0, 99, String::new());
        assert_eq!(full.list()[0].kind, Race);
        assert_eq!((full.list().len(), full.dropped), (REPORTED, 1));
    }
}
