//! Who touched which element: the CPU checker's trace of a run, kept with
//! the run's report so the access diagrams ([`crate::draw::diagram`]) can
//! be drawn from it, in a terminal, a page or a browser alike.
//!
//! A trace is asked for (the checker's `with_trace`); ordinary runs carry none.

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

/// One access of one element, with short field names: a trace is long.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Touch {
    /// The element (flat index; past the end for a write into the guard band).
    #[serde(rename = "e")]
    pub element: usize,
    /// The invocation's index in its launch.
    #[serde(rename = "i")]
    pub invocation: u32,
    #[serde(rename = "g")]
    pub workgroup: u32,
    #[serde(rename = "l", default, skip_serializing_if = "is_zero")]
    pub launch: u32,
    /// Barriers its workgroup had passed that order this memory.
    #[serde(rename = "b", default, skip_serializing_if = "is_zero")]
    pub interval: u32,
    #[serde(rename = "w", default, skip_serializing_if = "is_false")]
    pub write: bool,
    /// An atomic operation's: atomics never race with each other.
    #[serde(rename = "a", default, skip_serializing_if = "is_false")]
    pub atomic: bool,
    /// Past the end of the variable (in its guard band).
    #[serde(rename = "o", default, skip_serializing_if = "is_false")]
    pub outside: bool,
    /// The first element of its access (a `vec4` load is one access of four
    /// elements): what the access counts count.
    #[serde(rename = "f", default = "yes", skip_serializing_if = "is_true")]
    pub first: bool,
    /// The kernel file's line.
    #[serde(rename = "n")]
    pub line: usize,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn is_true(b: &bool) -> bool {
    *b
}

fn yes() -> bool {
    true
}

impl TouchedVariable {
    /// Its elements, guard band excluded.
    pub fn len(&self) -> usize {
        self.shape.iter().product()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}
