//! Who touched which element of a storage buffer or of workgroup memory in
//! a traced run, for the access diagrams. The trace's types and its limit
//! are `gpu-hazard`'s ([`gpu_hazard::AccessTrace`]), shared with the CUDA
//! checker; here the module-scope variables of a WGSL module are mapped to
//! the variables traced.
//!
//! Tracing is asked for ([`crate::launch::Config::trace`]); an ordinary check
//! keeps nothing. A touch beyond the guard band is not kept (the index it
//! meant is not known there; the hazard names it).

use crate::memory::{Region, Space};
use gpu_hazard::Tracer as Kept;
pub use gpu_hazard::{AccessTrace, Touch, VariableTrace};

/// Collects a run's touches, by module-scope variable.
#[derive(Debug)]
pub struct Tracer {
    kept: Kept,
    /// By module-scope variable index, the traced variable's index; `None`
    /// for what is not traced (uniforms, private).
    by_global: Vec<Option<usize>>,
}

impl Tracer {
    /// A tracer for the module-scope variables `globals` (as bound for the run).
    pub fn new(globals: &[Option<Region>]) -> Tracer {
        let mut kept = Kept::default();
        let by_global = globals
            .iter()
            .map(|g| {
                let region = g.as_ref()?;
                let traced = matches!(region.space, Space::Storage | Space::Workgroup);
                traced.then(|| {
                    kept.add(VariableTrace::new(
                        region.name.clone(),
                        region.space == Space::Workgroup,
                        region.len,
                        region.starts_unwritten,
                    ))
                })
            })
            .collect();
        Tracer { kept, by_global }
    }

    /// Records an access of `elements` of variable `global` (nothing for an
    /// untraced one). `touch` gives every field but the element.
    pub fn touch(&mut self, global: usize, elements: std::ops::Range<usize>, touch: Touch) {
        if let Some(Some(variable)) = self.by_global.get(global) {
            self.kept.touch(*variable, elements, touch);
        }
    }

    /// The trace, variables in declaration order.
    pub fn finish(self) -> AccessTrace {
        self.kept.finish()
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
        let trace = traced(true).findings.trace.expect("traced");
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
        assert_eq!(traced(false).findings.trace, None);
    }
}
