//! Reduction references: many elements into one (a sum, a dot product, a
//! row's or a column's sum), and the outputs that need one first (a group
//! minus its mean, a row over its length).

use super::{GROUP, Reference, dims2, out};

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "sum" => |i| out(vec![i.input("a")?.iter().sum()]),
        "dot" => |i| out(vec![dot(&i.input("a")?, &i.input("b")?)]),
        "row_sum" => |i| {
            let a = i.buffer("a")?;
            out(row_sums(&a.init.clone()?, dims2(a)?))
        },
        "column_sum" => |i| {
            let a = i.buffer("a")?;
            out(column_sums(&a.init.clone()?, dims2(a)?))
        },
        // Part IV: warps, subgroups and blocks.
        "group_centre" => |i| out(group_centre(&i.input("a")?)),
        "normalize_rows" => |i| {
            let a = i.buffer("a")?;
            out(normalize_rows(&a.init.clone()?, dims2(a)?))
        },
        _ => return None,
    };
    Some(reference)
}

/// Σ a[i] · b[i].
pub(super) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn row_sums(a: &[f64], (_, cols): (usize, usize)) -> Vec<f64> {
    a.chunks(cols).map(|row| row.iter().sum()).collect()
}

fn column_sums(a: &[f64], (rows, cols): (usize, usize)) -> Vec<f64> {
    (0..cols)
        .map(|c| (0..rows).map(|r| a[r * cols + c]).sum())
        .collect()
}

/// Each run of 8 consecutive elements minus its own mean (a shorter last
/// run minus the mean of what it has).
fn group_centre(a: &[f64]) -> Vec<f64> {
    a.chunks(GROUP)
        .flat_map(|g| {
            let mean = g.iter().sum::<f64>() / g.len() as f64;
            g.iter().map(move |v| v - mean)
        })
        .collect()
}

/// Each row divided by its Euclidean length; a row of zeros stays zeros.
fn normalize_rows(a: &[f64], (_, cols): (usize, usize)) -> Vec<f64> {
    a.chunks(cols.max(1))
        .flat_map(|row| {
            let norm = row.iter().map(|v| v * v).sum::<f64>().sqrt();
            row.iter()
                .map(move |v| if norm > 0.0 { v / norm } else { 0.0 })
        })
        .collect()
}
