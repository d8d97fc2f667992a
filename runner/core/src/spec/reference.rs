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

use crate::spec::model::{Arg, Buffer, Spec};
use std::collections::BTreeMap;

/// Expected outputs by buffer name, or `None` when the puzzle has no reference
/// (or its inputs are not the ones the reference reads).
pub fn expected(spec: &Spec) -> Option<BTreeMap<String, Vec<f64>>> {
    let buffer = |name: &str| {
        spec.args.iter().find_map(|a| match a {
            Arg::Buffer(b) if b.name == name => Some(b),
            _ => None,
        })
    };
    let input = |name: &str| buffer(name).and_then(|b| b.init.clone());
    let scalar = |name: &str| {
        spec.args.iter().find_map(|a| match a {
            Arg::Scalar { name: n, value, .. } if n == name => Some(*value),
            _ => None,
        })
    };
    let out = match spec.reference.as_str() {
        // Element-wise: out = a + 10, whatever the shape.
        "p01_map" | "p03_guard" | "p04_map_2d" | "p06_blocks" | "p07_blocks_2d" | "p08_shared" => {
            input("a")?.iter().map(|v| v + 10.0).collect()
        }
        "p02_zip" => input("a")?
            .iter()
            .zip(input("b")?)
            .map(|(a, b)| a + b)
            .collect(),
        // out[row][col] = a[col] + b[row]
        "p05_broadcast" => {
            let (a, b) = (input("a")?, input("b")?);
            b.iter()
                .flat_map(|row| a.iter().map(move |col| col + row))
                .collect()
        }
        "pooling" => pooling(&input("a")?, 3),
        "sum" => vec![input("a")?.iter().sum()],
        "dot" => vec![dot(&input("a")?, &input("b")?)],
        "conv1d" => conv1d(&input("a")?, &input("b")?),
        // Weights `w` (the async-copy chapter's name for the 5-tap kernel).
        "conv1d_centered" => conv1d_centered(&input("a")?, &input("w")?),
        "conv2d" => {
            let (image, kernel) = (buffer("a")?, buffer("b")?);
            conv2d(
                &image.init.clone()?,
                dims2(image)?,
                &kernel.init.clone()?,
                dims2(kernel)?,
            )
        }
        "prefix_sum" => inclusive_scan(&input("a")?),
        "reverse" => input("a")?.iter().rev().copied().collect(),
        "shift_left" => shift_left(&input("a")?),
        "prefix_sum_exclusive" => exclusive_scan(&input("a")?),
        "row_sum" => {
            let a = buffer("a")?;
            row_sums(&a.init.clone()?, dims2(a)?)
        }
        "column_sum" => {
            let a = buffer("a")?;
            column_sums(&a.init.clone()?, dims2(a)?)
        }
        "matmul" => {
            let (a, b) = (buffer("a")?, buffer("b")?);
            matmul(&a.init.clone()?, dims2(a)?, &b.init.clone()?, dims2(b)?)?
        }
        // Puzzle 15 (memory access patterns).
        "transpose" => {
            let a = buffer("a")?;
            transpose(&a.init.clone()?, dims2(a)?)
        }
        "two_branches" => two_branches(&input("a")?, scalar("iters")? as usize),
        // ---- Part IV ----
        // Warps, subgroups and blocks (puzzles 20-27). Some have two outputs,
        // so they return their whole map.
        "forward_difference" => forward_difference(&input("a")?),
        "group_centre" => group_centre(&input("a")?),
        "group_scan" => {
            let a = input("a")?;
            return Some(BTreeMap::from([
                ("out".to_string(), group_scan(&a, GROUP, true)),
                ("excl".to_string(), group_scan(&a, GROUP, false)),
            ]));
        }
        "block_compact" => {
            // One row of `out` per block: its kept elements first, then zeros.
            let (a, out) = (input("a")?, buffer("out")?);
            let (rows, cols) = dims2(out)?;
            let (kept, counts) = block_compact(&a, rows, cols);
            return Some(BTreeMap::from([
                ("out".to_string(), kept),
                ("counts".to_string(), counts),
            ]));
        }
        "row_prefix_sum" => {
            let a = buffer("a")?;
            row_prefix_sums(&a.init.clone()?, dims2(a)?)
        }
        "histogram" => {
            let bins = buffer("counts")?.len();
            let counts = histogram(&input("a")?, bins);
            let starts = exclusive_scan(&counts);
            return Some(BTreeMap::from([
                ("counts".to_string(), counts),
                ("starts".to_string(), starts),
            ]));
        }
        "normalize_rows" => {
            let a = buffer("a")?;
            normalize_rows(&a.init.clone()?, dims2(a)?)
        }
        // `iters` passes of the 1-2-1 stencil; one when the spec has no `iters`.
        "smooth_rows" => {
            let a = buffer("a")?;
            let iters = scalar("iters").map_or(1, |v| v as usize);
            smooth_rows(&a.init.clone()?, dims2(a)?, iters)
        }
        // ---- end Part IV ----
        // ---- Part V: the kernels of a transformer ----
        "softmax" => {
            let a = buffer("a")?;
            softmax_rows(&a.init.clone()?, dims2(a)?)
        }
        "layernorm" => {
            let a = buffer("a")?;
            layer_norm_rows(
                &a.init.clone()?,
                dims2(a)?,
                &input("gamma")?,
                &input("beta")?,
            )?
        }
        "rmsnorm" => {
            let a = buffer("a")?;
            rms_norm_rows(&a.init.clone()?, dims2(a)?, &input("gamma")?)?
        }
        // LayerNorm of the residual stream's sum: x + r, then normalized.
        "add_layernorm" => {
            let x = buffer("x")?;
            let sum: Vec<f64> = x
                .init
                .clone()?
                .iter()
                .zip(input("r")?)
                .map(|(a, b)| a + b)
                .collect();
            layer_norm_rows(&sum, dims2(x)?, &input("gamma")?, &input("beta")?)?
        }
        // A column's bias, the tanh form of GELU, then the column's scale.
        "bias_gelu_scale" => {
            let x = buffer("x")?;
            bias_gelu_scale(
                &x.init.clone()?,
                dims2(x)?,
                &input("bias")?,
                &input("scale")?,
            )?
        }
        // Row ids[t] of the table for every token t.
        "embedding" => {
            let table = buffer("table")?;
            let (vocab, dim) = dims2(table)?;
            let rows = table.init.as_deref()?;
            let ids = input("ids")?;
            if ids.iter().any(|&id| id < 0.0 || id as usize >= vocab) {
                return None;
            }
            ids.iter()
                .flat_map(|&id| rows[id as usize * dim..][..dim].iter().copied())
                .collect()
        }
        // softmax(q kᵀ / √dim) v for every head.
        "attention" => {
            let heads = Heads::of(buffer("q")?, buffer("k")?, buffer("v")?)?;
            (0..heads.count * heads.seq)
                .flat_map(|row| heads.row(row))
                .collect()
        }
        // ---- end Part V ----
        // ---- Part VI: precision and tensor cores ----
        // Each float rounded to the nearest BF16, ties to even (the `half`
        // crate's conversion), and widened back: what the kernel writes.
        "round_bf16" => input("a")?
            .iter()
            .map(|&v| half::bf16::from_f32(v as f32).to_f64())
            .collect(),
        _ => return None,
    };
    Some(BTreeMap::from([("out".to_string(), out)]))
}

/// Expected values of output `out` at a sample of its elements, for a run
/// too large to compute the whole reference for: `(flat index, value)` pairs
/// costing about `budget` operations in all, spread over the whole output.
/// Only references whose elements can be computed one at a time have one.
pub fn sampled(spec: &Spec, budget: f64) -> Option<Vec<(usize, f64)>> {
    let buffer = |name: &str| {
        spec.args.iter().find_map(|a| match a {
            Arg::Buffer(b) if b.name == name => Some(b),
            _ => None,
        })
    };
    match spec.reference.as_str() {
        "matmul" => {
            let (a, b) = (buffer("a")?, buffer("b")?);
            let ((m, k), (k2, n)) = (dims2(a)?, dims2(b)?);
            let (a, b) = (a.init.as_ref()?, b.init.as_ref()?);
            if k != k2 || m * n == 0 {
                return None;
            }
            let count = ((budget / (2 * k) as f64) as usize).clamp(1, m * n);
            Some(
                spread(m * n, count)
                    .map(|flat| {
                        let (row, col) = (flat / n, flat % n);
                        let value = (0..k).map(|i| a[row * k + i] * b[i * n + col]).sum();
                        (flat, value)
                    })
                    .collect(),
            )
        }
        // Whole rows of the output: one row's scores serve all its columns.
        "attention" => {
            let heads = Heads::of(buffer("q")?, buffer("k")?, buffer("v")?)?;
            let rows = heads.count * heads.seq;
            let per_row = (4 * heads.seq * heads.dim) as f64;
            let count = ((budget / per_row) as usize).clamp(1, rows);
            Some(
                spread(rows, count)
                    .flat_map(|row| {
                        let values = heads.row(row);
                        (0..heads.dim).map(move |d| (row * heads.dim + d, values[d]))
                    })
                    .collect(),
            )
        }
        _ => None,
    }
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

/// out[i] = a[i - window + 1] + … + a[i], with the window cut at the start.
fn pooling(a: &[f64], window: usize) -> Vec<f64> {
    (0..a.len())
        .map(|i| a[i.saturating_sub(window - 1)..=i].iter().sum())
        .collect()
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// out[i] = Σ_k a[i + k − h] · b[k] with h = len(b) / 2: the kernel centred
/// on element i, reading zeros outside `a` on both sides.
fn conv1d_centered(a: &[f64], b: &[f64]) -> Vec<f64> {
    let half = b.len() / 2;
    (0..a.len())
        .map(|i| {
            b.iter()
                .enumerate()
                .filter_map(|(k, w)| {
                    let j = (i + k).checked_sub(half)?;
                    a.get(j).map(|x| x * w)
                })
                .sum()
        })
        .collect()
}

/// out[i] = Σ_j a[i + j] · b[j], reading zeros past the end of `a`.
fn conv1d(a: &[f64], b: &[f64]) -> Vec<f64> {
    (0..a.len())
        .map(|i| {
            b.iter()
                .enumerate()
                .filter_map(|(j, w)| a.get(i + j).map(|x| x * w))
                .sum()
        })
        .collect()
}

/// out[y][x] = Σ a[y + ky][x + kx] · k[ky][kx], zeros past the bottom and right edges.
fn conv2d(a: &[f64], (h, w): (usize, usize), k: &[f64], (kh, kw): (usize, usize)) -> Vec<f64> {
    let mut out = vec![0.0; h * w];
    for y in 0..h {
        for x in 0..w {
            let mut sum = 0.0;
            for ky in 0..kh {
                for kx in 0..kw {
                    if y + ky < h && x + kx < w {
                        sum += a[(y + ky) * w + x + kx] * k[ky * kw + kx];
                    }
                }
            }
            out[y * w + x] = sum;
        }
    }
    out
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

/// out[i] = a[i + 1]: every element one place to the left, and 0 in the last.
fn shift_left(a: &[f64]) -> Vec<f64> {
    (0..a.len())
        .map(|i| a.get(i + 1).copied().unwrap_or(0.0))
        .collect()
}

/// out[i] = a[0] + … + a[i - 1]; out[0] = 0.
fn exclusive_scan(a: &[f64]) -> Vec<f64> {
    let mut out = vec![0.0];
    out.extend(inclusive_scan(a));
    out.truncate(a.len());
    out
}

fn row_sums(a: &[f64], (_, cols): (usize, usize)) -> Vec<f64> {
    a.chunks(cols).map(|row| row.iter().sum()).collect()
}

fn column_sums(a: &[f64], (rows, cols): (usize, usize)) -> Vec<f64> {
    (0..cols)
        .map(|c| (0..rows).map(|r| a[r * cols + c]).sum())
        .collect()
}

/// out = a · b for row-major a (m×k) and b (k×n); `None` when the inner sizes differ.
fn matmul(
    a: &[f64],
    (m, k): (usize, usize),
    b: &[f64],
    (k2, n): (usize, usize),
) -> Option<Vec<f64>> {
    if k != k2 {
        return None;
    }
    let mut out = vec![0.0; m * n];
    for row in 0..m {
        for col in 0..n {
            out[row * n + col] = (0..k).map(|i| a[row * k + i] * b[i * n + col]).sum();
        }
    }
    Some(out)
}

/// out[c][r] = a[r][c]: a (rows×cols) becomes out (cols×rows).
fn transpose(a: &[f64], (rows, cols): (usize, usize)) -> Vec<f64> {
    (0..cols)
        .flat_map(|c| (0..rows).map(move |r| a[r * cols + c]))
        .collect()
}

/// Even elements repeat x ← x/2 + 1 (towards 2), odd ones x ← 3/2 − x/2
/// (towards 1), `iters` times each.
fn two_branches(a: &[f64], iters: usize) -> Vec<f64> {
    a.iter()
        .enumerate()
        .map(|(i, &x)| {
            let (scale, shift) = if i % 2 == 0 { (0.5, 1.0) } else { (-0.5, 1.5) };
            (0..iters).fold(x, |x, _| x * scale + shift)
        })
        .collect()
}

// ---- Part IV ----

/// Lanes that work together in puzzles 22 and 23, whatever the subgroup size.
const GROUP: usize = 8;

/// out[i] = a[i + 1] − a[i], with a[size] taken as 0.
fn forward_difference(a: &[f64]) -> Vec<f64> {
    (0..a.len())
        .map(|i| a.get(i + 1).copied().unwrap_or(0.0) - a[i])
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

/// `iters` passes over each row of x[j] ← (x[j−1] + 2·x[j] + x[j+1]) / 4,
/// where a neighbour past either end of the row is the edge element itself.
fn smooth_rows(a: &[f64], (_, cols): (usize, usize), iters: usize) -> Vec<f64> {
    a.chunks(cols.max(1))
        .flat_map(|row| {
            let mut x = row.to_vec();
            for _ in 0..iters {
                let n = x.len();
                x = (0..n)
                    .map(|j| (x[j.saturating_sub(1)] + 2.0 * x[j] + x[(j + 1).min(n - 1)]) / 4.0)
                    .collect();
            }
            x
        })
        .collect()
}

// ---- end Part IV ----

// ---- Part V ----

/// Each row's softmax, exp(x[j] − max) / Σ exp(x[k] − max), in f64: the
/// same answer for logits near 100, whose plain exp overflows a `float`.
fn softmax_rows(a: &[f64], (_, cols): (usize, usize)) -> Vec<f64> {
    a.chunks(cols.max(1))
        .flat_map(|row| {
            let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            // libm's exp: the same bits natively and in WebAssembly.
            let sum: f64 = row.iter().map(|v| libm::exp(v - max)).sum();
            row.iter().map(move |v| libm::exp(v - max) / sum)
        })
        .collect()
}

/// The ε every LayerNorm kernel of the book adds to the variance (PyTorch's default).
pub const LAYER_NORM_EPS: f64 = 1e-5;

/// Each row normalized to mean 0 and variance 1 (the population variance,
/// plus [`LAYER_NORM_EPS`]), then scaled by `gamma` and shifted by `beta`,
/// one of each per column. None when `gamma` or `beta` does not match a row.
fn layer_norm_rows(
    a: &[f64],
    (_, cols): (usize, usize),
    gamma: &[f64],
    beta: &[f64],
) -> Option<Vec<f64>> {
    if gamma.len() != cols || beta.len() != cols {
        return None;
    }
    let rows = a
        .chunks(cols.max(1))
        .flat_map(|row| {
            let n = row.len() as f64;
            let mean = row.iter().sum::<f64>() / n;
            let variance = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
            let scale = 1.0 / (variance + LAYER_NORM_EPS).sqrt();
            row.iter()
                .zip(gamma.iter().zip(beta))
                .map(move |(v, (g, b))| (v - mean) * scale * g + b)
        })
        .collect();
    Some(rows)
}

/// Each row divided by its root mean square (plus [`LAYER_NORM_EPS`] under
/// the root), then scaled by `gamma`, one per column: LayerNorm without the
/// mean or the shift. None when `gamma` does not match a row.
fn rms_norm_rows(a: &[f64], (_, cols): (usize, usize), gamma: &[f64]) -> Option<Vec<f64>> {
    if gamma.len() != cols {
        return None;
    }
    let rows = a
        .chunks(cols.max(1))
        .flat_map(|row| {
            let mean_square = row.iter().map(|v| v * v).sum::<f64>() / row.len() as f64;
            let scale = 1.0 / (mean_square + LAYER_NORM_EPS).sqrt();
            row.iter().zip(gamma).map(move |(v, g)| v * scale * g)
        })
        .collect();
    Some(rows)
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
        let [count, seq, dim] = q.shape[..] else {
            return None;
        };
        if k.shape != q.shape || v.shape != q.shape || seq * dim == 0 {
            return None;
        }
        Some(Heads {
            q: q.init.as_deref()?,
            k: k.init.as_deref()?,
            v: v.init.as_deref()?,
            count,
            seq,
            dim,
        })
    }

    /// Output row `row` (head `row / seq`, query `row % seq`): the softmax of
    /// its scores q·k / √dim, largest subtracted, weighting the rows of v.
    fn row(&self, row: usize) -> Vec<f64> {
        let (seq, dim) = (self.seq, self.dim);
        let head = row / seq * seq * dim;
        let query = &self.q[row * dim..][..dim];
        let scale = 1.0 / (dim as f64).sqrt();
        let scores: Vec<f64> = (0..seq)
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

/// GELU in the tanh form every kernel of the book uses (WGSL has no `erf`):
/// v/2 · (1 + tanh(√(2/π) · (v + 0.044715 v³))).
fn gelu_tanh(v: f64) -> f64 {
    let inner = (2.0 / std::f64::consts::PI).sqrt() * (v + 0.044715 * v * v * v);
    0.5 * v * (1.0 + libm::tanh(inner))
}

/// gelu(x + bias[col]) · scale[col] for every element; None when `bias` or
/// `scale` does not match a row.
fn bias_gelu_scale(
    x: &[f64],
    (_, cols): (usize, usize),
    bias: &[f64],
    scale: &[f64],
) -> Option<Vec<f64>> {
    if bias.len() != cols || scale.len() != cols {
        return None;
    }
    Some(
        x.iter()
            .enumerate()
            .map(|(i, v)| gelu_tanh(v + bias[i % cols]) * scale[i % cols])
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spec::data::Dtype;

    fn buffer(name: &str, shape: &[usize], values: Option<Vec<f64>>) -> Arg {
        Arg::Buffer(Buffer {
            name: name.into(),
            dtype: Dtype::F32,
            shape: shape.to_vec(),
            init: values,
            expect: None,
            scratch: false,
            tensor_map: None,
        })
    }

    fn spec(reference: &str, args: Vec<Arg>) -> Spec {
        Spec {
            id: "test".into(),
            title: String::new(),
            reference: reference.into(),
            constants: Default::default(),
            launches: vec![],
            args,
            flops: None,
            math: Default::default(),
        }
    }

    fn arange(n: usize) -> Vec<f64> {
        (0..n).map(|i| i as f64).collect()
    }

    /// The references reproduce the seeds' printouts (book 001, blog 000, MatMul chapter 002).
    #[test]
    fn matches_the_seed_printouts() {
        type Case = (&'static str, Vec<Arg>, Vec<f64>);
        let a = |shape: &[usize], v: Vec<f64>| buffer("a", shape, Some(v));
        let b = |shape: &[usize], v: Vec<f64>| buffer("b", shape, Some(v));
        let iters = |n: u32| Arg::Scalar {
            name: "iters".into(),
            dtype: Dtype::U32,
            value: n.into(),
        };
        let cases: Vec<Case> = vec![
            (
                "p01_map",
                vec![a(&[4], arange(4))],
                vec![10.0, 11.0, 12.0, 13.0],
            ),
            (
                "p02_zip",
                vec![a(&[4], arange(4)), b(&[4], arange(4))],
                vec![0.0, 2.0, 4.0, 6.0],
            ),
            (
                "p05_broadcast",
                vec![a(&[2], arange(2)), b(&[2], arange(2))],
                vec![0.0, 1.0, 1.0, 2.0],
            ),
            ("sum", vec![a(&[5], arange(5))], vec![10.0]),
            // Centred 3-tap box over 0..5: each output adds its neighbours, zeros outside.
            (
                "conv1d_centered",
                vec![a(&[5], arange(5)), buffer("w", &[3], Some(vec![1.0; 3]))],
                vec![1.0, 3.0, 6.0, 9.0, 7.0],
            ),
            (
                "pooling",
                vec![a(&[8], arange(8))],
                vec![0.0, 1.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0],
            ),
            (
                "dot",
                vec![a(&[8], arange(8)), b(&[8], arange(8))],
                vec![140.0],
            ),
            (
                "conv1d",
                vec![a(&[6], arange(6)), b(&[3], arange(3))],
                vec![5.0, 8.0, 11.0, 14.0, 5.0, 0.0],
            ),
            (
                "conv1d",
                vec![a(&[15], arange(15)), b(&[4], arange(4))],
                vec![
                    14.0, 20.0, 26.0, 32.0, 38.0, 44.0, 50.0, 56.0, 62.0, 68.0, 74.0, 80.0, 41.0,
                    14.0, 0.0,
                ],
            ),
            (
                "prefix_sum",
                vec![a(&[8], arange(8))],
                vec![0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0],
            ),
            // The debugging chapter's fifth case (no seed has it).
            (
                "reverse",
                vec![a(&[6], arange(6))],
                vec![5.0, 4.0, 3.0, 2.0, 1.0, 0.0],
            ),
            // The debugging chapter's third case (no seed has it).
            (
                "shift_left",
                vec![a(&[8], arange(8))],
                vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0],
            ),
            ("shift_left", vec![a(&[1], vec![3.0])], vec![0.0]),
            (
                "prefix_sum_exclusive",
                vec![a(&[4], arange(4))],
                vec![0.0, 0.0, 1.0, 3.0],
            ),
            (
                "row_sum",
                vec![a(&[4, 6], arange(24))],
                vec![15.0, 51.0, 87.0, 123.0],
            ),
            (
                "column_sum",
                vec![a(&[2, 3], arange(6))],
                vec![3.0, 5.0, 7.0],
            ),
            (
                "matmul",
                vec![
                    a(&[2, 2], arange(4)),
                    b(&[2, 2], arange(4).iter().map(|v| 2.0 * v).collect()),
                ],
                vec![4.0, 6.0, 12.0, 22.0],
            ),
            (
                "transpose",
                vec![a(&[2, 3], arange(6))],
                vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0],
            ),
            (
                "two_branches",
                vec![a(&[4], arange(4)), iters(2)],
                vec![1.5, 1.0, 2.0, 1.5],
            ),
        ];
        for (name, args, want) in cases {
            assert_eq!(expected(&spec(name, args)).unwrap()["out"], want, "{name}");
        }
        // The complete scan ends at 105 (15 elements over two blocks).
        let scan = expected(&spec("prefix_sum", vec![a(&[15], arange(15))])).unwrap();
        assert_eq!(scan["out"].last(), Some(&105.0));
        // The 9×9 tiled matmul of the MatMul chapter starts 3672, 3744 and ends 61272.
        let nine = arange(81);
        let twice: Vec<f64> = nine.iter().map(|v| 2.0 * v).collect();
        let out =
            &expected(&spec("matmul", vec![a(&[9, 9], nine), b(&[9, 9], twice)])).unwrap()["out"];
        assert_eq!((out[0], out[1], out[80]), (3672.0, 3744.0, 61272.0));
        assert!(expected(&spec("p99_unknown", vec![])).is_none());
    }

    // ---- Part IV ----

    /// Part IV's references, worked by hand: (reference, inputs, output name, values).
    #[test]
    fn part_iv_references() {
        type Case = (&'static str, Vec<Arg>, &'static str, Vec<f64>);
        let a = |shape: &[usize], v: Vec<f64>| buffer("a", shape, Some(v));
        let out = |name: &str, shape: &[usize]| buffer(name, shape, None);
        let iters = |n: u32| Arg::Scalar {
            name: "iters".into(),
            dtype: Dtype::U32,
            value: n.into(),
        };
        let mixed = vec![1.0, -1.0, 2.0, 0.0, -3.0, 4.0, -5.0, 6.0, 7.0];
        let edges = vec![-4.0, -3.75, -0.25, 0.0, 3.75, 4.0];
        let mut starts = vec![0.0; 16];
        for (bin, start) in starts.iter_mut().enumerate() {
            *start = match bin {
                0 => 0.0,
                1..=7 => 2.0,
                8 => 3.0,
                _ => 4.0,
            };
        }
        let cases: Vec<Case> = vec![
            (
                "forward_difference",
                vec![a(&[4], vec![0.0, 1.0, 3.0, 6.0])],
                "out",
                vec![1.0, 2.0, 3.0, -6.0],
            ),
            (
                "group_centre",
                vec![a(&[10], arange(10))],
                "out",
                vec![-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.5, 0.5],
            ),
            (
                "group_scan",
                vec![a(&[10], arange(10))],
                "out",
                vec![0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 8.0, 17.0],
            ),
            (
                "group_scan",
                vec![a(&[10], arange(10))],
                "excl",
                vec![0.0, 0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 0.0, 8.0],
            ),
            (
                "block_compact",
                vec![a(&[9], mixed.clone()), out("out", &[3, 4])],
                "out",
                vec![1.0, 2.0, 0.0, 0.0, 4.0, 6.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0],
            ),
            (
                "block_compact",
                vec![a(&[9], mixed), out("out", &[3, 4])],
                "counts",
                vec![2.0, 2.0, 1.0],
            ),
            (
                "row_prefix_sum",
                vec![a(&[2, 3], arange(6))],
                "out",
                vec![0.0, 1.0, 3.0, 3.0, 7.0, 12.0],
            ),
            (
                "histogram",
                vec![a(&[6], edges.clone()), out("counts", &[16])],
                "counts",
                vec![
                    2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0,
                ],
            ),
            (
                "histogram",
                vec![a(&[6], edges), out("counts", &[16])],
                "starts",
                starts,
            ),
            (
                "normalize_rows",
                vec![a(&[2, 2], vec![3.0, 4.0, 0.0, 0.0])],
                "out",
                vec![0.6, 0.8, 0.0, 0.0],
            ),
            (
                "smooth_rows",
                vec![a(&[1, 4], vec![0.0, 4.0, 8.0, 4.0])],
                "out",
                vec![1.0, 4.0, 6.0, 5.0],
            ),
            (
                "smooth_rows",
                vec![a(&[1, 4], vec![0.0, 4.0, 8.0, 4.0]), iters(2)],
                "out",
                vec![1.75, 3.75, 5.25, 5.25],
            ),
        ];
        for (name, args, output, want) in cases {
            let got = expected(&spec(name, args)).unwrap();
            assert_eq!(got[output], want, "{name}: {output}");
        }
    }

    // ---- end Part IV ----

    /// Softmax, by hand: equal logits share evenly, a difference of ln 3
    /// gives 3:1, and moving a row by 1000 changes nothing (a plain exp of
    /// 1000 is infinite even in f64).
    #[test]
    fn softmax_references() {
        let ln3 = 3f64.ln();
        let cases: Vec<(&str, Vec<f64>, usize, Vec<f64>)> = vec![
            ("equal logits", vec![2.0; 4], 4, vec![0.25; 4]),
            ("ln 3 apart", vec![ln3, 0.0], 2, vec![0.75, 0.25]),
            (
                "moved by 1000",
                vec![1000.0 + ln3, 1000.0],
                2,
                vec![0.75, 0.25],
            ),
            (
                "two rows",
                vec![0.0, 0.0, 5.0, 5.0 - ln3],
                2,
                vec![0.5, 0.5, 0.75, 0.25],
            ),
        ];
        for (what, values, cols, want) in cases {
            let rows = values.len() / cols;
            let a = buffer("a", &[rows, cols], Some(values));
            let got = &expected(&spec("softmax", vec![a])).unwrap()["out"];
            assert_eq!(got.len(), want.len(), "{what}");
            for (g, w) in got.iter().zip(&want) {
                assert!((g - w).abs() < 1e-12, "{what}: {got:?}, want {want:?}");
            }
        }
    }

    /// LayerNorm, by hand: a row of 1, 3 has mean 2 and variance 1, so it
    /// becomes −1, 1 (less ε), then is scaled and shifted per column; the
    /// residual version normalizes x + r.
    #[test]
    fn layer_norm_references() {
        let shrink = 1.0 / (1.0 + LAYER_NORM_EPS).sqrt();
        let cols = |name: &str, v: Vec<f64>| buffer(name, &[2], Some(v));
        let rows = |name: &str, v: Vec<f64>| buffer(name, &[v.len() / 2, 2], Some(v));
        let plain = expected(&spec(
            "layernorm",
            vec![
                rows("a", vec![1.0, 3.0, 10.0, 10.0]),
                cols("gamma", vec![2.0, 3.0]),
                cols("beta", vec![0.5, 0.0]),
            ],
        ))
        .unwrap();
        let want = [-2.0 * shrink + 0.5, 3.0 * shrink, 0.5, 0.0];
        for (g, w) in plain["out"].iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{:?}", plain["out"]);
        }
        let residual = expected(&spec(
            "add_layernorm",
            vec![
                rows("x", vec![0.0, 3.0]),
                rows("r", vec![1.0, 0.0]),
                cols("gamma", vec![1.0, 1.0]),
                cols("beta", vec![0.0, 0.0]),
            ],
        ))
        .unwrap();
        assert!((residual["out"][0] + shrink).abs() < 1e-12);
        assert!((residual["out"][1] - shrink).abs() < 1e-12);
        let mismatched = spec(
            "layernorm",
            vec![
                rows("a", vec![1.0, 3.0]),
                cols("gamma", vec![1.0, 1.0]),
                buffer("beta", &[3], Some(vec![0.0; 3])),
            ],
        );
        assert!(
            expected(&mismatched).is_none(),
            "a beta of the wrong length has no reference"
        );
    }

    /// RMSNorm, by hand: a row of 3, 4 has mean square 12.5, so it is
    /// divided by √12.5 (less ε), with no mean taken away; a row of zeros
    /// stays zero.
    #[test]
    fn rms_norm_reference() {
        let a = buffer("a", &[2, 2], Some(vec![3.0, 4.0, 0.0, 0.0]));
        let gamma = buffer("gamma", &[2], Some(vec![1.0, 2.0]));
        let out = &expected(&spec("rmsnorm", vec![a, gamma])).unwrap()["out"];
        let root = (12.5 + LAYER_NORM_EPS).sqrt();
        let want = [3.0 / root, 8.0 / root, 0.0, 0.0];
        for (g, w) in out.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{out:?}");
        }
        let short = buffer("gamma", &[3], Some(vec![1.0; 3]));
        let a = buffer("a", &[1, 2], Some(vec![1.0, 1.0]));
        assert!(expected(&spec("rmsnorm", vec![a, short])).is_none());
    }

    /// The fused chain, by hand: GELU(0) = 0, GELU is nearly the identity
    /// far above 0 and nearly 0 far below, and each column has its own bias
    /// and scale.
    #[test]
    fn bias_gelu_scale_reference() {
        assert_eq!(gelu_tanh(0.0), 0.0);
        assert!((gelu_tanh(10.0) - 10.0).abs() < 1e-12);
        assert!(gelu_tanh(-10.0).abs() < 1e-12);
        // tanh form at 1: 0.5 · (1 + tanh(0.7978845608 · 1.044715)) = 0.841192
        assert!((gelu_tanh(1.0) - 0.841_192).abs() < 1e-6);
        let x = buffer("x", &[2, 2], Some(vec![-1.0, 10.0, 0.0, -20.0]));
        let bias = buffer("bias", &[2], Some(vec![1.0, 0.0]));
        let scale = buffer("scale", &[2], Some(vec![3.0, 2.0]));
        let out = &expected(&spec("bias_gelu_scale", vec![x, bias, scale])).unwrap()["out"];
        let want = [0.0, 20.0, 3.0 * gelu_tanh(1.0), 0.0];
        for (g, w) in out.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{out:?}");
        }
    }

    /// Attention, by hand: with equal scores every query averages the rows
    /// of v; a key that scores far higher takes all the weight; heads do not
    /// mix; and the sampled rows are the full reference's.
    #[test]
    fn attention_reference() {
        let q = buffer("q", &[2, 2, 1], Some(vec![0.0, 0.0, 100.0, -100.0]));
        let k = buffer("k", &[2, 2, 1], Some(vec![1.0, 2.0, 0.0, 1.0]));
        let v = buffer("v", &[2, 2, 1], Some(vec![4.0, 8.0, -1.0, 3.0]));
        let attention = spec("attention", vec![q, k, v]);
        let out = &expected(&attention).unwrap()["out"];
        // head 0: q = 0 scores both keys 0: the mean of 4 and 8. Head 1:
        // q = 100 prefers key 1 (score 100 against 0), q = -100 key 0.
        let want = [6.0, 6.0, 3.0, -1.0];
        for (g, w) in out.iter().zip(want) {
            assert!((g - w).abs() < 1e-9, "{out:?}");
        }
        let sample = sampled(&attention, 1e9).unwrap();
        assert_eq!(sample.len(), 4, "every row fits the budget");
        for (i, value) in sample {
            assert_eq!(value, out[i]);
        }
        let flat = buffer("q", &[4], Some(vec![0.0; 4]));
        let k = buffer("k", &[4], Some(vec![0.0; 4]));
        let v = buffer("v", &[4], Some(vec![0.0; 4]));
        assert!(expected(&spec("attention", vec![flat, k, v])).is_none());
    }

    /// An embedding, by hand: each token's row of the table, in the ids'
    /// order, repeats included; an id past the table has no reference.
    #[test]
    fn embedding_reference() {
        let table = buffer(
            "table",
            &[3, 2],
            Some(vec![0.0, 1.0, 10.0, 11.0, 20.0, 21.0]),
        );
        let ids = buffer("ids", &[4], Some(vec![2.0, 0.0, 2.0, 1.0]));
        let out = &expected(&spec("embedding", vec![table.clone(), ids])).unwrap()["out"];
        assert_eq!(out, &[20.0, 21.0, 0.0, 1.0, 20.0, 21.0, 10.0, 11.0]);
        let past = buffer("ids", &[1], Some(vec![3.0]));
        assert!(expected(&spec("embedding", vec![table, past])).is_none());
    }

    #[test]
    fn sampled_matmul_agrees_with_the_full_one() {
        // (rows, inner, cols, budget): from one output to every output.
        let cases = [(3, 4, 5, 1.0, 1), (8, 8, 8, 64.0, 4), (6, 2, 4, 1e9, 24)];
        for (m, k, n, budget, count) in cases {
            let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64 - 3.0).collect();
            let b: Vec<f64> = (0..k * n).map(|i| (i % 5) as f64 * 0.5).collect();
            let spec = spec(
                "matmul",
                vec![
                    buffer("out", &[m, n], None),
                    buffer("a", &[m, k], Some(a)),
                    buffer("b", &[k, n], Some(b)),
                ],
            );
            let full = &expected(&spec).unwrap()["out"];
            let sample = sampled(&spec, budget).unwrap();
            assert_eq!(sample.len(), count, "{m}x{k}x{n}");
            let mut seen = std::collections::BTreeSet::new();
            for (flat, value) in sample {
                assert!(seen.insert(flat), "{flat} twice");
                assert_eq!(value, full[flat], "{m}x{k}x{n} at {flat}");
            }
        }
        assert!(sampled(&spec("sum", vec![]), 1e9).is_none());
    }

    #[test]
    fn edges_and_mismatches() {
        // 2D convolution: a 3×3 box of ones over ones reads zeros past the bottom-right edge.
        let ones = |n| vec![1.0; n];
        let out = conv2d(&ones(16), (4, 4), &ones(9), (3, 3));
        assert_eq!(out[0], 9.0);
        assert_eq!(out[3], 3.0, "last column sees one column");
        assert_eq!(out[15], 1.0, "bottom-right corner sees itself");
        assert_eq!(matmul(&ones(6), (2, 3), &ones(6), (2, 3)), None, "3 ≠ 2");
        assert_eq!(exclusive_scan(&[]), Vec::<f64>::new());
    }
}
