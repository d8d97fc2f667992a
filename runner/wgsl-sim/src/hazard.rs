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

/// One access to an element, as the race check remembers it: WGSL's
/// order, shared with the CUDA checker's race rule in `gpu-hazard`.
pub type Access = gpu_hazard::Epochs<Span>;

/// The race check's memory of one element since the dispatch began.
pub type Shadow = gpu_hazard::Shadow<Access>;

/// What a write marks written: every byte of the element.
pub const ALL_BYTES: u8 = 0xF;

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
    let span = now.at;
    for (offset, shadow) in shadows.iter_mut().enumerate() {
        let leaf = first + offset;
        let uninitialized = !write && memory.starts_unwritten && shadow.written() == 0;
        let conflict = if write {
            shadow.write(&now)
        } else {
            shadow.read(&now)
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
                names.invocation(now.thread),
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
        let why = if other.block != now.block {
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
            names.invocation(now.thread),
            verb(write),
            names.element(leaf),
            memory.described,
            names.invocation(other.thread),
            verb(other_wrote),
            lines.line(other.at),
        );
        hazards.add(Kind::Race, span, lines.line(span), message);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
