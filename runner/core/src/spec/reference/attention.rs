//! Attention's reference, softmax(q kᵀ / √dim) v for every head, whole or at
//! a sample of its rows (one row's scores serve all its columns), and its
//! causal form, where query i sees keys 0 to i only.

use super::reductions::dot;
use super::{Inputs, Reference, out, spread};
use crate::spec::model::Buffer;

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "attention" => |i| whole(i, false),
        "attention_causal" => |i| whole(i, true),
        _ => return None,
    };
    Some(reference)
}

/// Every row of every head's output.
fn whole(i: &Inputs<'_>, causal: bool) -> Option<super::Outputs> {
    let heads = Heads::of(i.buffer("q")?, i.buffer("k")?, i.buffer("v")?)?;
    out((0..heads.count * heads.seq)
        .flat_map(|row| heads.row(row, causal))
        .collect())
}

/// The outputs of `attention` (or, `causal`, of `attention_causal`) in whole
/// rows, a sample of them costing about `budget` operations in all (see
/// [`super::sampled`]).
pub(super) fn sampled(i: &Inputs<'_>, budget: f64, causal: bool) -> Option<Vec<(usize, f64)>> {
    let heads = Heads::of(i.buffer("q")?, i.buffer("k")?, i.buffer("v")?)?;
    let rows = heads.count * heads.seq;
    let per_row = (4 * heads.seq * heads.dim) as f64;
    let count = ((budget / per_row) as usize).clamp(1, rows);
    Some(
        spread(rows, count)
            .flat_map(|row| {
                let values = heads.row(row, causal);
                (0..heads.dim).map(move |d| (row * heads.dim + d, values[d]))
            })
            .collect(),
    )
}

/// The `[heads, seq, dim]` extents that attention's tensors share: the one
/// check of them that the forward references here and the backward one
/// (`training.rs`) both make.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct HeadShape {
    pub(super) heads: usize,
    pub(super) seq: usize,
    pub(super) dim: usize,
}

impl HeadShape {
    /// None unless `shape` is `[heads, seq, dim]`, none of them 0, and each
    /// of `tensors` holds heads × seq × dim values: a sized spec's inputs
    /// carry an empty `init`, which no row may be read from.
    pub(super) fn of(shape: &[usize], tensors: &[&[f64]]) -> Option<HeadShape> {
        let [heads, seq, dim] = shape[..] else {
            return None;
        };
        let len = heads * seq * dim;
        if len == 0 || tensors.iter().any(|t| t.len() != len) {
            return None;
        }
        Some(HeadShape { heads, seq, dim })
    }
}

/// The query, key and value tensors of an attention puzzle, each
/// `[heads, seq, dim]`, flattened; the heads are independent.
struct Heads<'a> {
    q: &'a [f64],
    k: &'a [f64],
    v: &'a [f64],
    count: usize,
    seq: usize,
    dim: usize,
}

impl<'a> Heads<'a> {
    /// None unless all three are initialized and share one 3-D shape.
    fn of(q: &'a Buffer, k: &'a Buffer, v: &'a Buffer) -> Option<Heads<'a>> {
        // The same shape, not merely the same length: a k of [4, 2, 2] is
        // not the keys of a q of [2, 4, 2].
        if k.shape != q.shape || v.shape != q.shape {
            return None;
        }
        let (q_init, k_init, v_init) = (q.init.as_deref()?, k.init.as_deref()?, v.init.as_deref()?);
        let HeadShape { heads, seq, dim } = HeadShape::of(&q.shape, &[q_init, k_init, v_init])?;
        Some(Heads {
            q: q_init,
            k: k_init,
            v: v_init,
            count: heads,
            seq,
            dim,
        })
    }

    /// Output row `row` (head `row / seq`, query `row % seq`): the softmax of
    /// its scores q·k / √dim, largest subtracted, weighting the rows of v;
    /// `causal`, over the keys up to the query's own position only.
    fn row(&self, row: usize, causal: bool) -> Vec<f64> {
        let (seq, dim) = (self.seq, self.dim);
        let head = row / seq * seq * dim;
        let query = &self.q[row * dim..][..dim];
        let scale = 1.0 / (dim as f64).sqrt();
        let keys = if causal { row % seq + 1 } else { seq };
        let scores: Vec<f64> = (0..keys)
            .map(|j| dot(query, &self.k[head + j * dim..][..dim]) * scale)
            .collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|s| libm::exp(s - max)).collect();
        let total: f64 = weights.iter().sum();
        let mut out = vec![0.0; dim];
        for (j, w) in weights.iter().enumerate() {
            for (o, v) in out.iter_mut().zip(&self.v[head + j * dim..][..dim]) {
                *o += w / total * v;
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::HeadShape;

    /// The shape check both attention references make: three extents, none
    /// of them 0, and every tensor exactly that long.
    #[test]
    fn head_shape_table() {
        // (the shape, the tensors' values, the check's answer)
        type Case<'a> = (&'a [usize], &'a [&'a [f64]], Option<HeadShape>);
        let (four, three) = (&[0.0; 4][..], &[0.0; 3][..]);
        let ok = |heads, seq, dim| Some(HeadShape { heads, seq, dim });
        let cases: [Case; 8] = [
            (&[2, 2, 1], &[four, four, four], ok(2, 2, 1)),
            (&[1, 2, 2], &[four, four, four, four], ok(1, 2, 2)),
            (&[4], &[four, four, four], None),
            (&[2, 2], &[four, four, four], None),
            (&[1, 2, 2, 1], &[four, four, four], None),
            (&[0, 2, 2], &[&[], &[], &[]], None),
            (&[2, 2, 1], &[four, three, four], None),
            // A sized spec's input: an empty `init`.
            (&[2, 2, 1], &[four, four, &[]], None),
        ];
        for (shape, tensors, want) in cases {
            assert_eq!(
                HeadShape::of(shape, tensors),
                want,
                "{shape:?} with lengths {:?}",
                tensors.iter().map(|t| t.len()).collect::<Vec<_>>()
            );
        }
    }
}
