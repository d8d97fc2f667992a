//! Scan references: prefix sums (inclusive, exclusive, per group, per row),
//! and what is built on them: a block's stream compaction, a histogram's
//! bin starts.

use super::{GROUP, Reference, dims2, out};
use std::collections::BTreeMap;

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "prefix_sum" => |i| out(inclusive_scan(&i.input("a")?)),
        "prefix_sum_exclusive" => |i| out(exclusive_scan(&i.input("a")?)),
        // Part IV (puzzles 20-27). Some have two outputs, so they return
        // their whole map.
        "group_scan" => |i| {
            let a = i.input("a")?;
            Some(BTreeMap::from([
                ("out".to_string(), group_scan(&a, GROUP, true)),
                ("excl".to_string(), group_scan(&a, GROUP, false)),
            ]))
        },
        "block_compact" => |i| {
            // One row of `out` per block: its kept elements first, then zeros.
            let (a, out) = (i.input("a")?, i.buffer("out")?);
            let (rows, cols) = dims2(out)?;
            let (kept, counts) = block_compact(&a, rows, cols);
            Some(BTreeMap::from([
                ("out".to_string(), kept),
                ("counts".to_string(), counts),
            ]))
        },
        "row_prefix_sum" => |i| {
            let a = i.buffer("a")?;
            out(row_prefix_sums(&a.init.clone()?, dims2(a)?))
        },
        "histogram" => |i| {
            let bins = i.buffer("counts")?.len();
            let counts = histogram(&i.input("a")?, bins);
            let starts = exclusive_scan(&counts);
            Some(BTreeMap::from([
                ("counts".to_string(), counts),
                ("starts".to_string(), starts),
            ]))
        },
        _ => return None,
    };
    Some(reference)
}

/// out[i] = a[0] + … + a[i].
fn inclusive_scan(a: &[f64]) -> Vec<f64> {
    a.iter()
        .scan(0.0, |total, v| {
            *total += v;
            Some(*total)
        })
        .collect()
}

/// out[i] = a[0] + … + a[i - 1]; out[0] = 0.
pub(super) fn exclusive_scan(a: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0];
    out.extend(inclusive_scan(a));
    out.truncate(a.len());
    out
}

/// A prefix sum that starts again at every multiple of `width`: inclusive
/// (each element counted) or exclusive (each group starts at 0).
fn group_scan(a: &[f64], width: usize, inclusive: bool) -> Vec<f64> {
    a.chunks(width)
        .flat_map(|g| match inclusive {
            true => inclusive_scan(g),
            false => exclusive_scan(g),
        })
        .collect()
}

/// Stream compaction per block: block b keeps the positive elements of
/// a[b·cols .. (b+1)·cols], in order, at the start of row b of `out`, and
/// zeros after them; `counts[b]` says how many it kept.
fn block_compact(a: &[f64], rows: usize, cols: usize) -> (Vec<f64>, Vec<f64>) {
    let mut out = vec![0.0; rows * cols];
    let mut counts = vec![0.0; rows];
    for (b, chunk) in a.chunks(cols).enumerate().take(rows) {
        let kept: Vec<f64> = chunk.iter().copied().filter(|&v| v > 0.0).collect();
        out[b * cols..b * cols + kept.len()].copy_from_slice(&kept);
        counts[b] = kept.len() as f64;
    }
    (out, counts)
}

/// Each row's inclusive prefix sum.
fn row_prefix_sums(a: &[f64], (_, cols): (usize, usize)) -> Vec<f64> {
    a.chunks(cols.max(1)).flat_map(inclusive_scan).collect()
}

/// Counts of `a` in `bins` equal bins over [-4, 4) (the range of `random`
/// inputs); values below fall in the first bin, values from 4 up in the last.
fn histogram(a: &[f64], bins: usize) -> Vec<f64> {
    let mut counts = vec![0.0; bins];
    for v in a {
        let bin = ((v + 4.0) * bins as f64 / 8.0).floor().max(0.0) as usize;
        counts[bin.min(bins - 1)] += 1.0;
    }
    counts
}
