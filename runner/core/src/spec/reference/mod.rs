//! CPU references: what each puzzle's outputs must be, for any size.
//!
//! The seeds' printouts fix the teaching sizes; a kernel can match them by
//! accident (four elements, four threads). Stress runs change the sizes and
//! feed random inputs, and these functions say what the outputs must then be.
//! A spec picks its function with `reference:` (its id when absent), so the
//! variants of one puzzle (raw, with views, tiled) share one definition.
//!
//! Shapes come from the buffers, never from constants: a reference cannot
//! disagree with the sizes the kernel was launched with.
//!
//! One file a family, each naming its own references (`FAMILIES`):
//! - `elementwise`: each output from its own element or a fixed one (maps,
//!   zips, broadcasts, moves, transposes, rounding);
//! - `stencils`: each output from a window around it (pooling, convolutions,
//!   smoothing);
//! - `reductions`: sums, dot products, a group's mean, a row's length;
//! - `scans`: prefix sums, and what is built on them (compaction, a
//!   histogram's bin starts);
//! - `matmul`: the matrix product, whole or sampled, and FP8's scaled one;
//! - `transformer`: softmax, the norms, GELU, an embedding's lookup;
//! - `attention`: softmax(q kᵀ / √dim) v per head, whole or sampled;
//! - `training`: the backward pass (a softmax's, LayerNorm's, a
//!   cross-entropy loss's gradients) and an AdamW step;
//! - `collectives`: specs on several GPUs (all-reduce, a copy from a peer),
//!   each rank's `out@r` from every rank's `a@r`.

mod attention;
mod collectives;
mod elementwise;
mod matmul;
mod reductions;
mod scans;
mod stencils;
mod training;
mod transformer;

use crate::spec::model::{Arg, Buffer, Spec, rank_name};
use std::collections::BTreeMap;

pub use transformer::LAYER_NORM_EPS;

/// Expected values by output buffer name.
type Outputs = BTreeMap<String, Vec<f64>>;

/// One reference: the outputs of a spec's inputs, or `None` when its inputs
/// are not the ones the reference reads.
type Reference = fn(&Inputs<'_>) -> Option<Outputs>;

/// Each family's reference of a name, if it has one; no name is in two.
const FAMILIES: [fn(&str) -> Option<Reference>; 9] = [
    elementwise::named,
    stencils::named,
    reductions::named,
    scans::named,
    matmul::named,
    transformer::named,
    attention::named,
    training::named,
    collectives::named,
];

/// Expected outputs by buffer name, or `None` when the puzzle has no reference
/// (or its inputs are not the ones the reference reads).
pub fn expected(spec: &Spec) -> Option<BTreeMap<String, Vec<f64>>> {
    let reference = FAMILIES
        .iter()
        .find_map(|named| named(spec.reference.as_str()))?;
    reference(&Inputs { spec })
}

/// Expected values of one output at a sample of its elements, for a run
/// too large to compute the whole reference for: the output's name, and
/// `(flat index, value)` pairs costing about `budget` operations in all,
/// spread over the whole output. Only references whose elements can be
/// computed a few at a time have one (attention's backward pass: its dq).
pub fn sampled(spec: &Spec, budget: f64) -> Option<(&'static str, Vec<(usize, f64)>)> {
    let inputs = Inputs { spec };
    match spec.reference.as_str() {
        "matmul" => Some(("out", matmul::sampled(&inputs, budget)?)),
        "matmul_scaled" => Some(("out", matmul::sampled_scaled(&inputs, budget)?)),
        "attention" => Some(("out", attention::sampled(&inputs, budget, false)?)),
        "attention_causal" => Some(("out", attention::sampled(&inputs, budget, true)?)),
        "attention_backward" => Some(("dq", training::sampled_dq(&inputs, budget)?)),
        _ => None,
    }
}

/// A spec's arguments by name, as the references read them.
struct Inputs<'a> {
    spec: &'a Spec,
}

impl<'a> Inputs<'a> {
    /// The buffer called `name`.
    fn buffer(&self, name: &str) -> Option<&'a Buffer> {
        self.spec.args.iter().find_map(|a| match a {
            Arg::Buffer(b) if b.name == name => Some(b),
            _ => None,
        })
    }

    /// The initial values of the buffer called `name`, where it has them.
    fn input(&self, name: &str) -> Option<Vec<f64>> {
        self.buffer(name).and_then(|b| b.init.clone())
    }

    /// The initial values of every rank's copy of buffer `name` (`name@0`,
    /// `name@1`, …), in a spec on several GPUs.
    fn ranks(&self, name: &str) -> Option<Vec<Vec<f64>>> {
        if self.spec.gpus < 2 {
            return None;
        }
        (0..self.spec.gpus)
            .map(|r| self.input(&rank_name(name, r)))
            .collect()
    }

    /// The value of the scalar called `name`.
    fn scalar(&self, name: &str) -> Option<f64> {
        self.spec.args.iter().find_map(|a| match a {
            Arg::Scalar { name: n, value, .. } if n == name => Some(*value),
            _ => None,
        })
    }
}

/// The outputs of a reference with one output, `out`: most of them.
fn out(values: Vec<f64>) -> Option<Outputs> {
    Some(BTreeMap::from([("out".to_string(), values)]))
}

/// `count` distinct indices below `len`, evenly spaced with an odd step, so
/// that in a matrix with an even row length they fall in every column, not
/// only in a few.
fn spread(len: usize, count: usize) -> impl Iterator<Item = usize> {
    let step = (len / count.max(1)).max(1) | 1;
    (0..len).step_by(step).take(count)
}

/// (rows, cols) of a matrix buffer; a vector is one row.
fn dims2(b: &Buffer) -> Option<(usize, usize)> {
    match b.shape.as_slice() {
        [n] => Some((1, *n)),
        [rows, cols] => Some((*rows, *cols)),
        _ => None,
    }
}

/// Lanes that work together in puzzles 22 and 23, whatever the subgroup size.
const GROUP: usize = 8;

#[cfg(test)]
mod tests;
