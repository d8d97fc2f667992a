//! Part V's references, the kernels of a transformer but attention: a row's
//! softmax, LayerNorm (plain and on the residual stream's sum), RMSNorm,
//! bias-GELU-scale, and an embedding's lookup.

use super::{Reference, dims2, out};

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "softmax" => |i| {
            let a = i.buffer("a")?;
            out(softmax_rows(&a.init.clone()?, dims2(a)?))
        },
        "layernorm" => |i| {
            let a = i.buffer("a")?;
            out(layer_norm_rows(
                &a.init.clone()?,
                dims2(a)?,
                &i.input("gamma")?,
                &i.input("beta")?,
            )?)
        },
        "rmsnorm" => |i| {
            let a = i.buffer("a")?;
            out(rms_norm_rows(
                &a.init.clone()?,
                dims2(a)?,
                &i.input("gamma")?,
            )?)
        },
        // LayerNorm of the residual stream's sum: x + r, then normalized.
        "add_layernorm" => |i| {
            let x = i.buffer("x")?;
            let sum: Vec<f64> = x
                .init
                .clone()?
                .iter()
                .zip(i.input("r")?)
                .map(|(a, b)| a + b)
                .collect();
            out(layer_norm_rows(
                &sum,
                dims2(x)?,
                &i.input("gamma")?,
                &i.input("beta")?,
            )?)
        },
        // A column's bias, the tanh form of GELU, then the column's scale.
        "bias_gelu_scale" => |i| {
            let x = i.buffer("x")?;
            out(bias_gelu_scale(
                &x.init.clone()?,
                dims2(x)?,
                &i.input("bias")?,
                &i.input("scale")?,
            )?)
        },
        // Row ids[t] of the table for every token t.
        "embedding" => |i| {
            let table = i.buffer("table")?;
            let (vocab, dim) = dims2(table)?;
            let rows = table.init.as_deref()?;
            let ids = i.input("ids")?;
            if ids.iter().any(|&id| id < 0.0 || id as usize >= vocab) {
                return None;
            }
            out(ids
                .iter()
                .flat_map(|&id| rows[id as usize * dim..][..dim].iter().copied())
                .collect())
        },
        _ => return None,
    };
    Some(reference)
}

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

/// GELU in the tanh form every kernel of the book uses (WGSL has no `erf`):
/// v/2 · (1 + tanh(√(2/π) · (v + 0.044715 v³))).
pub(super) fn gelu_tanh(v: f64) -> f64 {
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
