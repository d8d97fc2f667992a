//! Collective references, for specs on several GPUs (`gpus:`): what every
//! rank's output must hold once the ranks have exchanged their inputs.
//! Rank r's buffers are `a@r` and `out@r`, read by base name (`a`).

use super::{Outputs, Reference};
use crate::spec::model::rank_name;

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        // Every rank ends with the elementwise sum of every rank's `a`.
        "all_reduce" => |i| {
            let sum = all_reduce(&i.ranks("a")?)?;
            let ranks = i.spec.gpus;
            Some(each_rank(ranks, |_| sum.clone()))
        },
        // Puzzle 38: each rank's gradient is twice its `a` (its given first
        // step), and every rank ends with the sum of the gradients.
        "all_reduce_of_doubled" => |i| {
            let doubled: Vec<Vec<f64>> = i
                .ranks("a")?
                .into_iter()
                .map(|a| a.into_iter().map(|x| 2.0 * x).collect())
                .collect();
            let sum = all_reduce(&doubled)?;
            Some(each_rank(i.spec.gpus, |_| sum.clone()))
        },
        // Rank r ends with its neighbour's `a`: a@((r + 1) % ranks).
        "peer_copy" => |i| {
            let a = i.ranks("a")?;
            Some(each_rank(i.spec.gpus, |r| a[(r + 1) % a.len()].clone()))
        },
        // Puzzle 40's layer without its all-reduce: rank r's share of
        // the output, gelu(x · w1@r) · w2@r.
        "tp_mlp_partial" => |i| {
            let partials = tp_mlp_partials(i)?;
            Some(each_rank(i.spec.gpus, |r| partials[r].clone()))
        },
        // Puzzle 40's whole layer: every rank ends with the sum of every
        // rank's share, which is the unsplit layer's output.
        "tp_mlp" => |i| {
            let sum = all_reduce(&tp_mlp_partials(i)?)?;
            Some(each_rank(i.spec.gpus, |_| sum.clone()))
        },
        _ => return None,
    };
    Some(reference)
}

/// Every rank's share of a tensor-parallel MLP: W1's columns and W2's rows
/// that rank r holds (`w1@r`, dim × hid; `w2@r`, hid × dim) applied to the
/// input every rank holds (`x@r`, rows × dim): gelu(x · w1@r) · w2@r.
fn tp_mlp_partials(i: &super::Inputs) -> Option<Vec<Vec<f64>>> {
    let dims = |name: &str| super::dims2(i.buffer(&rank_name(name, 0))?);
    let (x, w1, w2) = (i.ranks("x")?, i.ranks("w1")?, i.ranks("w2")?);
    let (x_dims, w1_dims, w2_dims) = (dims("x")?, dims("w1")?, dims("w2")?);
    (0..x.len())
        .map(|r| {
            let h = super::matmul::matmul(&x[r], x_dims, &w1[r], w1_dims)?;
            let h: Vec<f64> = h.into_iter().map(super::transformer::gelu_tanh).collect();
            super::matmul::matmul(&h, (x_dims.0, w1_dims.1), &w2[r], w2_dims)
        })
        .collect()
}

/// `out@r` for every rank, rank r's values from `of(r)`.
fn each_rank(ranks: u32, of: impl Fn(usize) -> Vec<f64>) -> Outputs {
    (0..ranks)
        .map(|r| (rank_name("out", r), of(r as usize)))
        .collect()
}

/// The elementwise sum of equally long vectors (`None` if their lengths
/// differ). Sums of quarters in [-4, 4] are exact in f32 for 8 ranks, so a
/// kernel's order of addition cannot matter.
fn all_reduce(ranks: &[Vec<f64>]) -> Option<Vec<f64>> {
    let len = ranks.first()?.len();
    if ranks.iter().any(|a| a.len() != len) {
        return None;
    }
    Some((0..len).map(|i| ranks.iter().map(|a| a[i]).sum()).collect())
}
