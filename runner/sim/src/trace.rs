//! Who touched which element: every load and store of a storage buffer or
//! of workgroup memory in a traced run, with the invocation that made it,
//! its workgroup, the launch, and the barrier interval it fell in. The
//! access diagrams are drawn from it.
//!
//! Tracing is asked for ([`crate::launch::Config::trace`]); an ordinary check
//! keeps nothing. A run keeps at most [`LIMIT`] touches in all and counts the
//! rest: the diagrams are for teaching sizes, where a few thousand suffice.
//! A touch of the guard band past a buffer's end is kept too, marked
//! `outside`, so the picture can mark it; one beyond the guard band is not
//! (the index it meant is not known there; the hazard names it).

use crate::memory::{Region, Space};

/// The most touches a run keeps.
pub const LIMIT: usize = 1 << 20;

/// One access of one element.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Touch {
    /// The element (one scalar: a `vec4` is four) of the variable, counted
    /// from its start; past the end for an access out of bounds.
    pub element: usize,
    /// The invocation, by its index in the dispatch (x fastest, then the workgroups).
    pub invocation: u32,
    /// Its workgroup, by index in the dispatch.
    pub workgroup: u32,
    /// Which launch of the run (0-based).
    pub launch: u32,
    /// How many barriers that order this memory its workgroup had passed
    /// (`workgroupBarrier` for workgroup memory, `storageBarrier` for storage).
    pub interval: u32,
    pub write: bool,
    /// An atomic operation's (ordered with other atomics: never a race).
    pub atomic: bool,
    /// The element lies in the guard band past the variable's end.
    pub outside: bool,
    /// The first element of its access: a `vec4` load touches four
    /// elements in one access, which [`crate::access`] counts once.
    pub first: bool,
    /// The kernel line it was made at (1-based; 0 where unknown).
    pub line: usize,
}

/// The touches of one module-scope variable.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VariableTrace {
    pub name: String,
    /// Workgroup memory (one copy per workgroup), or a storage buffer.
    pub workgroup_memory: bool,
    /// Its elements (scalars), guard band excluded.
    pub elements: usize,
    /// Starts out unwritten (workgroup memory, outputs): a read before any
    /// write reads nothing anyone wrote.
    pub starts_unwritten: bool,
    pub touches: Vec<Touch>,
}

/// Every traced variable's touches, in the order the simulation made them.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct AccessTrace {
    /// Storage buffers and workgroup variables, in declaration order.
    pub variables: Vec<VariableTrace>,
    /// Touches beyond [`LIMIT`], not kept.
    pub left_out: u64,
}

/// Collects a run's touches.
#[derive(Debug)]
pub struct Tracer {
    /// By module-scope variable index; `None` for what is not traced (uniforms, private).
    by_global: Vec<Option<VariableTrace>>,
    kept: usize,
    left_out: u64,
}

impl Tracer {
    /// A tracer for the module-scope variables `globals` (as bound for the run).
    pub fn new(globals: &[Option<Region>]) -> Tracer {
        let by_global = globals
            .iter()
            .map(|g| {
                let region = g.as_ref()?;
                let traced = matches!(region.space, Space::Storage | Space::Workgroup);
                traced.then(|| VariableTrace {
                    name: region.name.clone(),
                    workgroup_memory: region.space == Space::Workgroup,
                    elements: region.len,
                    starts_unwritten: region.starts_unwritten,
                    touches: Vec::new(),
                })
            })
            .collect();
        Tracer {
            by_global,
            kept: 0,
            left_out: 0,
        }
    }

    /// Records an access of `elements` of variable `global` (nothing for an
    /// untraced one). `touch` gives every field but the element.
    pub fn touch(&mut self, global: usize, elements: std::ops::Range<usize>, touch: Touch) {
        let Some(Some(variable)) = self.by_global.get_mut(global) else {
            return;
        };
        let start = elements.start;
        for element in elements {
            if self.kept >= LIMIT {
                self.left_out += 1;
                continue;
            }
            self.kept += 1;
            let first = element == start;
            variable.touches.push(Touch {
                element,
                first,
                ..touch
            });
        }
    }

    /// The trace, variables in declaration order.
    pub fn finish(self) -> AccessTrace {
        AccessTrace {
            variables: self.by_global.into_iter().flatten().collect(),
            left_out: self.left_out,
        }
    }
}

impl VariableTrace {
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

#[cfg(test)]
mod tests {
    use crate::{Binding, Config, Launch, TextLines, run};

    const KERNEL: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
var<workgroup> tile: array<f32, 4>;
@compute @workgroup_size(4)
fn main(@builtin(global_invocation_id) g: vec3<u32>,
        @builtin(local_invocation_index) l: u32) {
    tile[l] = a[g.x];
    workgroupBarrier();
    out[g.x] = tile[(l + 1u) % 4u];
    if (g.x == 7u) {
        out[g.x + 1u] = 1.0;
    }
}";

    /// The kernel above over two workgroups of four, `out` with a guard
    /// band of two words; traced or not.
    fn traced(trace: bool) -> crate::Run {
        let module = crate::run_tests::module(KERNEL);
        let bindings = [
            Binding {
                group: 0,
                binding: 0,
                words: vec![0; 10],
                len: 8,
                poisoned: true,
            },
            Binding {
                group: 0,
                binding: 1,
                words: (0..8).map(|i: u32| (i as f32).to_bits()).collect(),
                len: 8,
                poisoned: false,
            },
        ];
        let launch = Launch {
            entry: "main".into(),
            grid: [2, 1, 1],
            block: [4, 1, 1],
        };
        let config = Config {
            trace,
            ..Config::default()
        };
        run(
            &module,
            &[launch],
            &bindings,
            &TextLines::new(KERNEL),
            &config,
        )
        .expect("runs")
    }

    #[test]
    fn a_traced_run_says_who_touched_which_element_and_when() {
        let trace = traced(true).trace.expect("traced");
        assert_eq!(trace.left_out, 0);
        let names: Vec<&str> = trace.variables.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["out", "a", "tile"]);
        let [out, a, tile] = &trace.variables[..] else {
            unreachable!()
        };
        // Each element of `a` read once, by the invocation of the same index.
        assert_eq!(a.counts(), vec![(1, 0); 8]);
        assert!(a.touches.iter().all(|t| t.invocation as usize == t.element));
        // Each output written once, and one write into the guard band, at
        // the element it named, by the last invocation, at its line.
        assert_eq!(out.counts(), vec![(0, 1); 8]);
        let outside: Vec<_> = out.touches.iter().filter(|t| t.outside).collect();
        assert_eq!(outside.len(), 1);
        assert_eq!((outside[0].element, outside[0].invocation), (8, 7));
        assert_eq!(outside[0].line, 11);
        // Workgroup memory: written before the barrier, read after it, in
        // both workgroups.
        assert!(tile.workgroup_memory && tile.elements == 4);
        for t in &tile.touches {
            assert_eq!(t.interval, if t.write { 0 } else { 1 }, "{t:?}");
        }
        let workgroups: std::collections::BTreeSet<u32> =
            tile.touches.iter().map(|t| t.workgroup).collect();
        assert_eq!(workgroups.into_iter().collect::<Vec<_>>(), [0, 1]);
        assert_eq!(tile.counts(), vec![(2, 2); 4]);
    }

    #[test]
    fn an_ordinary_run_keeps_no_trace() {
        assert_eq!(traced(false).trace, None);
    }
}
