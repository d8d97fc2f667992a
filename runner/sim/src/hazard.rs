//! The checks: data races, out-of-bounds indices, reads of workgroup memory
//! nobody wrote, and barriers some invocations never reach. The race rule
//! and the check of every access ([`check_access`]) live here; the
//! interpreter calls them.
//!
//! Races are found from the happens-before order, not from the schedule that
//! happened to run: two accesses to one element conflict when they come from
//! different invocations, at least one writes, and no barrier orders them.
//! Inside a workgroup a barrier orders everything before it against
//! everything after it, so each access carries the barrier count (epoch) of
//! its workgroup; workgroups of one dispatch are never ordered. A hazard that
//! every GPU could hide is therefore reported on every run.

use naga::Span;

/// One access to an element, as the race check remembers it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Access {
    /// The invocation's index within the dispatch (unique across workgroups).
    pub invocation: u32,
    pub workgroup: u32,
    /// Barriers this workgroup had passed when the access happened.
    pub epoch: u32,
    pub span: Span,
}

impl Access {
    /// Whether `self`, which happened earlier in the simulation, is ordered before `later`.
    fn ordered_before(&self, later: &Access) -> bool {
        self.invocation == later.invocation
            || (self.workgroup == later.workgroup && self.epoch < later.epoch)
    }
}

/// The race check's memory of one element since the dispatch began.
#[derive(Debug, Clone, Default)]
pub struct Shadow {
    write: Option<Access>,
    /// Reads since the last write that a later write could still race with.
    reads: Vec<Access>,
    /// Written: by some invocation of this workgroup (workgroup memory), or
    /// by any launch so far (a buffer that starts poisoned).
    pub written: bool,
}

/// Reads kept per element: beyond two distinct readers, a later writer
/// conflicts with one of them anyway, so more would only cost memory.
const READS_KEPT: usize = 4;

/// A conflicting earlier access: the access and whether it wrote.
pub type Conflict = (Access, bool);

impl Shadow {
    /// Records a read; returns the unordered write it races with, if any.
    pub fn read(&mut self, now: Access) -> Option<Conflict> {
        let conflict = self
            .write
            .filter(|w| !w.ordered_before(&now))
            .map(|w| (w, true));
        // Reads ordered before this one are covered by it for any later writer.
        self.reads
            .retain(|r| r.workgroup != now.workgroup || r.epoch >= now.epoch);
        let known = self.reads.iter().any(|r| r.invocation == now.invocation);
        if !known && self.reads.len() < READS_KEPT {
            self.reads.push(now);
        }
        conflict
    }

    /// A new dispatch is ordered after everything before it: nothing left
    /// to race with, but what was written stays written.
    pub fn new_dispatch(&mut self) {
        self.write = None;
        self.reads.clear();
    }

    /// Records a write; returns an unordered earlier write or read it races with, if any.
    pub fn write(&mut self, now: Access) -> Option<Conflict> {
        let conflict = self
            .write
            .filter(|w| !w.ordered_before(&now))
            .map(|w| (w, true))
            .or_else(|| {
                self.reads
                    .iter()
                    .find(|r| !r.ordered_before(&now))
                    .map(|r| (*r, false))
            });
        // Whatever races with the reads dropped here also races with this write.
        self.write = Some(now);
        self.reads.clear();
        self.written = true;
        conflict
    }
}

/// The kinds of finding, shared with the other checker and the core.
pub use gpu_hazard::Kind;

/// A hazard at a place in the kernel (`at`: its span in naga's IR).
pub type Hazard = gpu_hazard::Hazard<Span>;

/// The hazards of a run, one per kind and kernel line.
pub type Hazards = gpu_hazard::Hazards<Span>;

/// Where a span lies, as the line number the caller's messages use (the
/// kernel file's own line, through whatever includes the caller expanded).
pub trait LineMap {
    fn line(&self, span: Span) -> usize;
}

/// The plain [`LineMap`]: 1-based lines of the WGSL text that was parsed.
pub struct TextLines {
    /// Byte offset where each line of the text starts.
    starts: Vec<usize>,
}

impl TextLines {
    pub fn new(text: &str) -> TextLines {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        TextLines { starts }
    }
}

impl LineMap for TextLines {
    fn line(&self, span: Span) -> usize {
        let offset = span.to_range().map(|r| r.start).unwrap_or(0);
        self.starts.partition_point(|&s| s <= offset).max(1)
    }
}

/// How the messages name things: an invocation by its number in the
/// dispatch, a leaf of the variable being accessed. Only asked for when a
/// new hazard is reported (the check runs on every access).
pub trait Names {
    fn invocation(&self, number: u32) -> String;
    fn element(&self, leaf: usize) -> String;
}

/// The memory an access touches, as the checks need to know it.
#[derive(Debug, Clone, Copy)]
pub struct Memory {
    /// Workgroup memory (barriers: `workgroupBarrier`), or a storage
    /// buffer (`storageBarrier`).
    pub workgroup: bool,
    /// Reads of unwritten slots are reported: workgroup memory, and
    /// buffers that start poisoned (outputs).
    pub starts_unwritten: bool,
    /// "workgroup memory", "storage buffer".
    pub described: &'static str,
}

/// Checks an access by `now` to the leaves whose shadows are `shadows`
/// (`first` being the first leaf's index), against the race rule and, for
/// reads of workgroup memory, for slots nobody wrote; a new hazard is added
/// to `hazards` at `now`'s line.
#[allow(clippy::too_many_arguments)]
pub fn check_access(
    hazards: &mut Hazards,
    lines: &dyn LineMap,
    shadows: &mut [Shadow],
    first: usize,
    memory: Memory,
    now: Access,
    write: bool,
    names: &dyn Names,
) {
    let span = now.span;
    for (offset, shadow) in shadows.iter_mut().enumerate() {
        let leaf = first + offset;
        let uninitialized = !write && memory.starts_unwritten && !shadow.written;
        let conflict = if write {
            shadow.write(now)
        } else {
            shadow.read(now)
        };
        if uninitialized && !hazards.known(Kind::Uninitialized, lines.line(span)) {
            let why = if memory.workgroup {
                "before any invocation of its workgroup wrote it. WGSL fills workgroup \
                 memory with zeros, so this reads 0; CUDA's shared memory would hold \
                 whatever was there. Write every slot you read, or do not read it"
            } else {
                "before anything wrote it. Outputs start out holding poison (NaN for \
                 floats), so this reads poison and whatever is computed from it is poison \
                 too: `out[i] += …` needs `out[i]` set first"
            };
            let message = format!(
                "{} reads {} {why}",
                names.invocation(now.invocation),
                names.element(leaf),
            );
            hazards.add(Kind::Uninitialized, span, lines.line(span), message);
        }
        let Some((other, other_wrote)) = conflict else {
            continue;
        };
        if hazards.known(Kind::Race, lines.line(span)) {
            continue;
        }
        let verb = |w: bool| if w { "writes" } else { "reads" };
        let why = if other.workgroup != now.workgroup {
            "invocations of different workgroups are never ordered within one dispatch \
             (a barrier waits for its own workgroup only): split the work into two launches"
                .to_string()
        } else {
            let barrier = if memory.workgroup {
                "workgroupBarrier()"
            } else {
                "storageBarrier()"
            };
            format!("no {barrier} lies between the two accesses, so either may come first")
        };
        let message = format!(
            "{} {} {} ({}) here, and {} {} it at line {}; {why}",
            names.invocation(now.invocation),
            verb(write),
            names.element(leaf),
            memory.described,
            names.invocation(other.invocation),
            verb(other_wrote),
            lines.line(other.span),
        );
        hazards.add(Kind::Race, span, lines.line(span), message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(invocation: u32, workgroup: u32, epoch: u32) -> Access {
        Access {
            invocation,
            workgroup,
            epoch,
            span: Span::default(),
        }
    }

    #[derive(Clone, Copy)]
    enum Op {
        R(u32, u32, u32),
        W(u32, u32, u32),
    }

    /// (case, accesses in simulation order, whether the last one races).
    #[test]
    fn race_rule_table() {
        use Op::*;
        let cases: &[(&str, &[Op], bool)] = &[
            (
                "own element, read after write",
                &[W(0, 0, 0), R(0, 0, 0)],
                false,
            ),
            (
                "neighbour reads, no barrier",
                &[W(1, 0, 0), R(0, 0, 0)],
                true,
            ),
            (
                "neighbour reads after a barrier",
                &[W(1, 0, 0), R(0, 0, 1)],
                false,
            ),
            (
                "write after neighbour's read, same epoch",
                &[R(0, 0, 0), W(1, 0, 0)],
                true,
            ),
            (
                "write after neighbour's read, barrier between",
                &[R(0, 0, 0), W(1, 0, 1)],
                false,
            ),
            ("two writers, same epoch", &[W(0, 0, 0), W(1, 0, 0)], true),
            (
                "reads never race",
                &[R(0, 0, 0), R(1, 0, 0), R(2, 0, 0)],
                false,
            ),
            (
                "other workgroup, later epoch",
                &[W(0, 0, 0), R(8, 1, 5)],
                true,
            ),
            (
                "many readers, then one of them writes",
                &[R(0, 0, 0), R(1, 0, 0), R(2, 0, 0), W(2, 0, 0)],
                true,
            ),
            (
                "readers before a barrier, writer after",
                &[R(0, 0, 0), R(1, 0, 0), R(2, 0, 1), W(3, 0, 2)],
                false,
            ),
            (
                "reader in an old epoch is dropped, a new one is not",
                &[R(1, 0, 0), R(2, 0, 1), W(3, 0, 1)],
                true,
            ),
        ];
        for (name, ops, races) in cases {
            let mut shadow = Shadow::default();
            let mut last = None;
            for op in *ops {
                last = match *op {
                    R(i, w, e) => shadow.read(at(i, w, e)),
                    W(i, w, e) => shadow.write(at(i, w, e)),
                };
            }
            assert_eq!(last.is_some(), *races, "{name}");
        }
    }

    #[test]
    fn spans_map_to_text_lines() {
        let lines = TextLines::new("a\nbb\nccc\n");
        let cases = [
            ((0, 1), 1),
            ((2, 3), 2),
            ((5, 6), 3),
            ((6, 8), 3),
            ((3, 4), 2),
        ];
        for ((start, end), want) in cases {
            assert_eq!(lines.line(Span::new(start, end)), want, "{start}..{end}");
        }
    }
}
