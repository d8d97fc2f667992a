//! What the invocations of a dispatch share: where each one sits, the
//! module-scope memory, the checks' records, the access counts, and the
//! clock that stops an endless loop.

use crate::access::Counter;
use crate::hazard::{Hazards, Kind, LineMap};
use crate::memory::Region;
use crate::program::Fault;
use crate::trace::Tracer;
use naga::Span;

/// Where an invocation sits in the dispatch.
#[derive(Debug, Clone, Copy)]
pub struct Ids {
    pub global: [u32; 3],
    pub local: [u32; 3],
    pub workgroup: [u32; 3],
    pub num_workgroups: [u32; 3],
    pub local_index: u32,
    /// Unique within the dispatch: workgroup index × invocations per workgroup + local index.
    pub invocation: u32,
    pub workgroup_index: u32,
    /// Invocations per subgroup; an invocation's subgroup is `local_index / subgroup_size`.
    pub subgroup_size: u32,
    /// Invocations per workgroup.
    pub per_group: u32,
}

/// State shared by the invocations of a dispatch: module-scope memory and the checks.
pub struct Shared<'s> {
    /// Module-scope variables by handle index (private ones live in the invocations).
    pub globals: Vec<Option<Region>>,
    pub hazards: Hazards,
    pub lines: &'s dyn LineMap,
    /// Global-memory reads and writes per invocation.
    pub access: Counter,
    /// Every access of storage and workgroup memory, where the run is traced.
    pub trace: Option<Tracer>,
    /// Invocations per subgroup.
    pub subgroup_size: u32,
    /// Which launch of the run is going on (0-based).
    pub launch: usize,
    /// Barriers passed by the running workgroup that order workgroup and storage memory.
    pub epochs: [u32; 2],
    pub block: [u32; 3],
    deadline: gpu_hazard::Deadline,
}

impl<'s> Shared<'s> {
    pub fn new(
        globals: Vec<Option<Region>>,
        lines: &'s dyn LineMap,
        config: &crate::launch::Config,
    ) -> Shared<'s> {
        Shared {
            trace: config.trace.then(|| Tracer::new(&globals)),
            globals,
            hazards: Hazards::default(),
            lines,
            access: Counter::default(),
            subgroup_size: config.subgroup_size.max(1),
            launch: 0,
            epochs: [0, 0],
            block: [1, 1, 1],
            deadline: config.limits.start(),
        }
    }

    /// Counts a statement; every so often, checks the clock.
    pub(crate) fn tick(&mut self) -> Result<(), Fault> {
        if self.deadline.tick(16) {
            return Err(Fault::TimedOut {
                span: None,
                message: String::new(),
            });
        }
        Ok(())
    }

    /// Whether a hazard of `kind` is already reported on `span`'s line.
    pub fn known(&self, kind: Kind, span: Span) -> bool {
        self.hazards.known(kind, self.lines.line(span))
    }

    pub fn report(&mut self, kind: Kind, span: Span, message: String) {
        let line = self.lines.line(span);
        self.hazards.add(kind, span, line, message);
    }

    /// "invocation (3, 0, 0) of workgroup (1, 0, 0)", from a dispatch-wide invocation number.
    pub fn who(&self, invocation: u32, workgroups: [u32; 3]) -> String {
        invocation_name(invocation, self.block, workgroups)
    }
}

/// "invocation (3, 0, 0) of workgroup (1, 0, 0)", from a dispatch-wide
/// invocation number, the workgroup's size and the grid's.
pub(crate) fn invocation_name(invocation: u32, block: [u32; 3], workgroups: [u32; 3]) -> String {
    let per = block.iter().product::<u32>().max(1);
    let (l, w) = (invocation % per, invocation / per);
    let split = |i: u32, dims: [u32; 3]| {
        [
            i % dims[0],
            i / dims[0] % dims[1],
            i / (dims[0] * dims[1]).max(1),
        ]
    };
    format!(
        "invocation {} of workgroup {}",
        triple(split(l, block)),
        triple(split(w, workgroups))
    )
}

/// `(3, 0, 0)`.
pub fn triple(v: [u32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}
