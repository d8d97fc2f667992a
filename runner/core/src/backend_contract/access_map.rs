//! Who touched which element: the CPU checker's trace of a run, kept with
//! the run's report so the access diagrams ([`crate::draw::diagram`]) can
//! be drawn from it, in a terminal, a page or a browser alike.
//!
//! A trace is asked for (the checker's `with_trace`); ordinary runs carry none.

use crate::spec::model::{Arg, Spec};
use serde::{Deserialize, Serialize};

/// Every storage buffer and workgroup variable of a traced run, with each
/// access of each element.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AccessMap {
    /// The first launch's workgroups and invocations per workgroup.
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub variables: Vec<TouchedVariable>,
    /// Accesses beyond what a trace keeps, not kept.
    #[serde(default)]
    pub left_out: u64,
    /// A CUDA kernel's (the diagram says thread, block, shared and global
    /// memory, where WGSL's says invocation, workgroup and storage buffer).
    #[serde(default)]
    pub cuda: bool,
}

/// One variable's accesses.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TouchedVariable {
    pub name: String,
    /// Workgroup memory (one copy per workgroup), or a storage buffer.
    pub workgroup_memory: bool,
    /// The spec's shape where it has a buffer of this name; else its element count.
    pub shape: Vec<usize>,
    /// Starts out unwritten (workgroup memory, outputs).
    #[serde(default)]
    pub starts_unwritten: bool,
    /// In the order the checker ran them.
    pub touches: Vec<Touch>,
}

/// One access of one element: the checkers' own record, shared through
/// `gpu-hazard` (its serialized names are short: a trace is long).
pub use gpu_hazard::Touch;

impl TouchedVariable {
    /// Its elements, guard band excluded.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl AccessMap {
    /// A checker's trace of a run of `spec`, with the spec's shapes: a
    /// buffer is shaped as the spec declares it where the checker names it
    /// the same; the grid is the first launch's. `cuda` says which words
    /// the diagram uses.
    pub fn from_trace(trace: &gpu_hazard::AccessTrace, spec: &Spec, cuda: bool) -> AccessMap {
        let first = spec.launches.first();
        let shape_of = |name: &str, elements: usize| {
            spec.args
                .iter()
                .find_map(|a| match a {
                    Arg::Buffer(b) if b.name == name && b.len() == elements => {
                        Some(b.shape.clone())
                    }
                    _ => None,
                })
                .unwrap_or_else(|| vec![elements])
        };
        AccessMap {
            cuda,
            grid: first.map_or([1, 1, 1], |l| l.grid),
            block: first.map_or([1, 1, 1], |l| l.block),
            variables: trace
                .variables
                .iter()
                .map(|v| TouchedVariable {
                    name: v.name.clone(),
                    workgroup_memory: v.workgroup_memory,
                    shape: shape_of(&v.name, v.elements),
                    starts_unwritten: v.starts_unwritten,
                    touches: v.touches.clone(),
                })
                .collect(),
            left_out: trace.left_out,
        }
    }
}
