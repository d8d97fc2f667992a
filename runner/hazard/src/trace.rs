//! Who touched which element: every load and store of global memory (a
//! storage buffer) or shared (workgroup) memory in a traced run, with the
//! thread that made it, its block, the launch and the barrier interval it
//! fell in. The access diagrams are drawn from it, for CUDA and WGSL alike.
//!
//! Tracing is asked for; an ordinary check keeps nothing. A run keeps at
//! most [`LIMIT`] touches in all and counts the rest: the diagrams are for
//! teaching sizes, where a few thousand suffice. A touch of the guard band
//! past a buffer's end is kept too, marked `outside`, so the picture can
//! mark it.

use serde::{Deserialize, Serialize};
use std::ops::Range;

/// The most touches a run keeps.
pub const LIMIT: usize = 1 << 20;

/// One access of one element, with short field names when serialized: a
/// trace is long.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Touch {
    /// The element of the variable (one scalar: a `vec4` is four), counted
    /// from its start; past the end for an access out of bounds.
    #[serde(rename = "e")]
    pub element: usize,
    /// The thread (invocation), by its index in the launch (x fastest, then the blocks).
    #[serde(rename = "i")]
    pub invocation: u32,
    /// Its block (workgroup), by index in the launch.
    #[serde(rename = "g")]
    pub workgroup: u32,
    /// Which launch of the run (0-based).
    #[serde(rename = "l", default, skip_serializing_if = "is_zero")]
    pub launch: u32,
    /// How many barriers that order this memory its block had passed.
    #[serde(rename = "b", default, skip_serializing_if = "is_zero")]
    pub interval: u32,
    #[serde(rename = "w", default, skip_serializing_if = "is_false")]
    pub write: bool,
    /// An atomic operation's.
    #[serde(rename = "a", default, skip_serializing_if = "is_false")]
    pub atomic: bool,
    /// The element lies in the guard band past the variable's end.
    #[serde(rename = "o", default, skip_serializing_if = "is_false")]
    pub outside: bool,
    /// The first element of its access: a `vec4` load (a `v4` load in PTX)
    /// touches four elements in one access, which the counts count once.
    #[serde(rename = "f", default = "yes", skip_serializing_if = "is_true")]
    pub first: bool,
    /// The kernel file's line (1-based; 0 where unknown).
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

/// The touches of one buffer or shared variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableTrace {
    pub name: String,
    /// Shared (workgroup) memory, one copy per block, or a global buffer.
    pub workgroup_memory: bool,
    /// Its elements, guard band excluded.
    pub elements: usize,
    /// Starts out unwritten (shared memory, outputs): a read before any
    /// write reads nothing anyone wrote.
    pub starts_unwritten: bool,
    pub touches: Vec<Touch>,
}

impl VariableTrace {
    /// A variable with no touches yet.
    pub fn new(
        name: String,
        workgroup_memory: bool,
        elements: usize,
        starts_unwritten: bool,
    ) -> Self {
        VariableTrace {
            name,
            workgroup_memory,
            elements,
            starts_unwritten,
            touches: Vec::new(),
        }
    }

    /// How many times each element was read and written over the whole run:
    /// `(reads, writes)` by element, the variable's own elements only.
    pub fn counts(&self) -> Vec<(u32, u32)> {
        let mut counts = vec![(0u32, 0u32); self.elements];
        for t in self.touches.iter().filter(|t| !t.outside) {
            if let Some(c) = counts.get_mut(t.element) {
                if t.write {
                    c.1 += 1;
                } else {
                    c.0 += 1;
                }
            }
        }
        counts
    }
}

/// Every traced variable's touches, in the order the checker made them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessTrace {
    pub variables: Vec<VariableTrace>,
    /// Touches beyond [`LIMIT`], not kept.
    pub left_out: u64,
}

/// Collects a run's touches, up to [`LIMIT`].
#[derive(Debug, Default)]
pub struct Tracer {
    variables: Vec<VariableTrace>,
    kept: usize,
    left_out: u64,
}

impl Tracer {
    pub fn new(variables: Vec<VariableTrace>) -> Tracer {
        Tracer {
            variables,
            kept: 0,
            left_out: 0,
        }
    }

    /// Adds a variable (the checker met it during the run); returns its index.
    pub fn add(&mut self, variable: VariableTrace) -> usize {
        self.variables.push(variable);
        self.variables.len() - 1
    }

    pub fn variables(&self) -> &[VariableTrace] {
        &self.variables
    }

    /// Records an access of `elements` of variable `variable` (nothing for
    /// an index it does not have). `touch` gives every field but the
    /// element and `first`.
    pub fn touch(&mut self, variable: usize, elements: Range<usize>, touch: Touch) {
        let start = elements.start;
        for element in elements {
            let first = element == start;
            self.touch_one(
                variable,
                Touch {
                    element,
                    first,
                    ..touch
                },
            );
        }
    }

    /// Records one touch as given.
    pub fn touch_one(&mut self, variable: usize, touch: Touch) {
        let Some(v) = self.variables.get_mut(variable) else {
            return;
        };
        if self.kept >= LIMIT {
            self.left_out += 1;
            return;
        }
        self.kept += 1;
        v.touches.push(touch);
    }

    /// The trace, variables in the order they were added.
    pub fn finish(self) -> AccessTrace {
        AccessTrace {
            variables: self.variables,
            left_out: self.left_out,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn touch(write: bool, outside: bool) -> Touch {
        Touch {
            element: 0,
            invocation: 0,
            workgroup: 0,
            launch: 0,
            interval: 0,
            write,
            atomic: false,
            outside,
            first: true,
            line: 1,
        }
    }

    /// (accesses as (variable, elements, write, outside), each element's
    /// (reads, writes) of variable 0, the touches left out)
    #[test]
    fn tracer_table() {
        type Case = (
            &'static [(usize, Range<usize>, bool, bool)],
            &'static [(u32, u32)],
            u64,
        );
        let cases: &[Case] = &[
            (
                &[(0, 0..2, false, false), (0, 1..2, true, false)],
                &[(1, 0), (1, 1), (0, 0)],
                0,
            ),
            // A vector access: three elements, one access.
            (&[(0, 0..3, true, false)], &[(0, 1), (0, 1), (0, 1)], 0),
            // The guard band is kept but not counted; an unknown variable is not traced.
            (
                &[(0, 3..4, true, true), (7, 0..1, true, false)],
                &[(0, 0); 3],
                0,
            ),
        ];
        for (i, (accesses, counts, left_out)) in cases.iter().enumerate() {
            let mut tracer = Tracer::new(vec![VariableTrace::new("a".into(), false, 3, true)]);
            for (variable, elements, write, outside) in accesses.iter().cloned() {
                tracer.touch(variable, elements, touch(write, outside));
            }
            let trace = tracer.finish();
            assert_eq!(trace.variables[0].counts(), *counts, "case {i}");
            assert_eq!(trace.left_out, *left_out, "case {i}");
            let firsts = trace.variables[0]
                .touches
                .iter()
                .filter(|t| t.first)
                .count();
            assert_eq!(
                firsts,
                accesses.iter().filter(|a| a.0 == 0).count(),
                "case {i}"
            );
        }
    }

    /// Past the limit, touches are counted, not kept.
    #[test]
    fn a_run_keeps_at_most_the_limit() {
        let mut tracer = Tracer::default();
        let shared = tracer.add(VariableTrace::new("tile".into(), true, 4, true));
        tracer.touch(shared, 0..LIMIT + 5, touch(false, false));
        let trace = tracer.finish();
        assert_eq!(
            (trace.variables[0].touches.len(), trace.left_out),
            (LIMIT, 5)
        );
    }

    /// The serialized form keeps its short names and leaves defaults out.
    #[test]
    fn a_touch_serializes_short() {
        let json = serde_json::to_string(&touch(true, false)).expect("serializes");
        assert_eq!(json, r#"{"e":0,"i":0,"g":0,"w":true,"n":1}"#);
        let back: Touch = serde_json::from_str(&json).expect("reads back");
        assert_eq!(back, touch(true, false));
    }
}
