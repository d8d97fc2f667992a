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
        _ => return None,
    };
    Some(reference)
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
