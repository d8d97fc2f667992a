//! Part VIII's references, training: the gradients of a softmax, of
//! LayerNorm, of a cross-entropy loss and of attention, one AdamW step,
//! and rounds of training a linear classifier with the last two, in f64.
//!
//! A wrong gradient reference would let a wrong kernel pass, so each one is
//! checked against central finite differences of the forward function it
//! differentiates (the tests at the end of this file).

use super::attention::HeadShape;
use super::{Inputs, Outputs, Reference, dims2, out, spread, transformer::LAYER_NORM_EPS};
use std::collections::BTreeMap;

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "softmax_backward" => |i| {
            let y = i.buffer("y")?;
            out(softmax_backward(
                &y.init.clone()?,
                &i.input("dy")?,
                dims2(y)?,
            )?)
        },
        "layernorm_backward" => layernorm_backward_outputs,
        "cross_entropy" => cross_entropy_outputs,
        "adamw" => adamw_outputs,
        "training_step" => training_step_outputs,
        "attention_backward" => attention_backward_outputs,
        _ => return None,
    };
    Some(reference)
}

/// The outputs of a reference by name.
fn outputs<const N: usize>(named: [(&str, Vec<f64>); N]) -> Option<Outputs> {
    Some(BTreeMap::from(
        named.map(|(name, values)| (name.to_string(), values)),
    ))
}

/// dx = y ⊙ (dy − Σ y·dy) for each row: the gradient of a loss through
/// y = softmax(x), given the forward's output y and the loss's gradient dy.
fn softmax_backward(y: &[f64], dy: &[f64], (_, cols): (usize, usize)) -> Option<Vec<f64>> {
    if dy.len() != y.len() {
        return None;
    }
    let dx = y
        .chunks(cols.max(1))
        .zip(dy.chunks(cols.max(1)))
        .flat_map(|(y, dy)| {
            let dot: f64 = y.iter().zip(dy).map(|(a, b)| a * b).sum();
            y.iter().zip(dy).map(move |(y, dy)| y * (dy - dot))
        })
        .collect();
    Some(dx)
}

fn layernorm_backward_outputs(i: &Inputs<'_>) -> Option<Outputs> {
    let x = i.buffer("x")?;
    let grads = layernorm_backward(
        &x.init.clone()?,
        &i.input("dy")?,
        &i.input("gamma")?,
        dims2(x)?,
    )?;
    outputs([
        ("dx", grads.dx),
        ("dgamma", grads.dgamma),
        ("dbeta", grads.dbeta),
    ])
}

/// LayerNorm's three gradients.
struct LayerNormGrads {
    dx: Vec<f64>,
    dgamma: Vec<f64>,
    dbeta: Vec<f64>,
}

/// The gradients of a loss through y = LayerNorm(x)·γ + β (Puzzle 29's, ε
/// included), given dy. With x̂ the normalized row and r its reciprocal
/// standard deviation: dx = r·(g − mean(g) − x̂·mean(g·x̂)) with g = γ·dy,
/// and dγ = Σ_rows dy·x̂, dβ = Σ_rows dy, the column sums.
fn layernorm_backward(
    x: &[f64],
    dy: &[f64],
    gamma: &[f64],
    (rows, cols): (usize, usize),
) -> Option<LayerNormGrads> {
    if gamma.len() != cols || x.len() != rows * cols || dy.len() != x.len() {
        return None;
    }
    let mut grads = LayerNormGrads {
        dx: Vec::with_capacity(x.len()),
        dgamma: vec![0.0; cols],
        dbeta: vec![0.0; cols],
    };
    let n = cols as f64;
    for (x, dy) in x.chunks(cols).zip(dy.chunks(cols)) {
        let mean = x.iter().sum::<f64>() / n;
        let variance = x.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
        let rstd = 1.0 / (variance + LAYER_NORM_EPS).sqrt();
        let xhat: Vec<f64> = x.iter().map(|v| (v - mean) * rstd).collect();
        let g: Vec<f64> = dy.iter().zip(gamma).map(|(d, g)| d * g).collect();
        let mean_g = g.iter().sum::<f64>() / n;
        let mean_gx = g.iter().zip(&xhat).map(|(g, x)| g * x).sum::<f64>() / n;
        for j in 0..cols {
            grads.dx.push(rstd * (g[j] - mean_g - xhat[j] * mean_gx));
            grads.dgamma[j] += dy[j] * xhat[j];
            grads.dbeta[j] += dy[j];
        }
    }
    Some(grads)
}

fn cross_entropy_outputs(i: &Inputs<'_>) -> Option<Outputs> {
    let logits = i.buffer("logits")?;
    let (loss, dlogits) =
        cross_entropy(&logits.init.clone()?, &i.input("targets")?, dims2(logits)?)?;
    outputs([("loss", loss), ("dlogits", dlogits)])
}

/// Each row's loss, log Σ exp(x) − x[target], and its gradient with respect
/// to the logits, softmax(x) − onehot(target): the gradient of the sum of
/// the rows' losses. None when a target is not a column, or the shapes
/// disagree.
fn cross_entropy(
    logits: &[f64],
    targets: &[f64],
    (rows, cols): (usize, usize),
) -> Option<(Vec<f64>, Vec<f64>)> {
    let fits = logits.len() == rows * cols && targets.len() == rows;
    if !fits || targets.iter().any(|&t| t < 0.0 || t as usize >= cols) {
        return None;
    }
    let mut loss = Vec::with_capacity(rows);
    let mut dlogits = Vec::with_capacity(logits.len());
    for (row, &target) in logits.chunks(cols.max(1)).zip(targets) {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        // libm's exp and log: the same bits natively and in WebAssembly.
        let sum: f64 = row.iter().map(|v| libm::exp(v - max)).sum();
        loss.push(libm::log(sum) + max - row[target as usize]);
        dlogits.extend(
            row.iter().enumerate().map(|(j, v)| {
                libm::exp(v - max) / sum - if j == target as usize { 1.0 } else { 0.0 }
            }),
        );
    }
    Some((loss, dlogits))
}

/// AdamW's settings, the spec's scalars.
#[derive(Clone, Copy)]
struct AdamW {
    lr: f64,
    beta1: f64,
    beta2: f64,
    eps: f64,
    weight_decay: f64,
    step: f64,
}

impl AdamW {
    /// The settings the spec's scalars give, at step `step`.
    fn of(i: &Inputs<'_>, step: f64) -> Option<AdamW> {
        Some(AdamW {
            lr: i.scalar("lr")?,
            beta1: i.scalar("beta1")?,
            beta2: i.scalar("beta2")?,
            eps: i.scalar("eps")?,
            weight_decay: i.scalar("weight_decay")?,
            step,
        })
    }
}

fn adamw_outputs(i: &Inputs<'_>) -> Option<Outputs> {
    let settings = AdamW::of(i, i.scalar("step")?)?;
    let stepped = adamw(
        &settings,
        &i.input("param")?,
        &i.input("grad")?,
        &i.input("m")?,
        &i.input("v")?,
    )?;
    outputs([
        ("param_out", stepped.param),
        ("m_out", stepped.m),
        ("v_out", stepped.v),
    ])
}

/// The parameters and both moments after a step.
#[derive(Debug, PartialEq)]
struct Stepped {
    param: Vec<f64>,
    m: Vec<f64>,
    v: Vec<f64>,
}

/// One AdamW step (Loshchilov and Hutter; PyTorch's `torch.optim.AdamW`):
/// the moments move towards the gradient and its square, the parameter
/// decays by lr·λ, then steps by lr times the bias-corrected first moment
/// over the root of the second plus ε. None when the arrays differ in length.
fn adamw(s: &AdamW, param: &[f64], grad: &[f64], m: &[f64], v: &[f64]) -> Option<Stepped> {
    let n = param.len();
    if grad.len() != n || m.len() != n || v.len() != n || s.step < 1.0 {
        return None;
    }
    let correction1 = 1.0 - libm::pow(s.beta1, s.step);
    let correction2 = 1.0 - libm::pow(s.beta2, s.step);
    let mut out = Stepped {
        param: Vec::with_capacity(n),
        m: Vec::with_capacity(n),
        v: Vec::with_capacity(n),
    };
    for k in 0..n {
        let m1 = s.beta1 * m[k] + (1.0 - s.beta1) * grad[k];
        let v1 = s.beta2 * v[k] + (1.0 - s.beta2) * grad[k] * grad[k];
        let decayed = param[k] * (1.0 - s.lr * s.weight_decay);
        let update = (m1 / correction1) / ((v1 / correction2).sqrt() + s.eps);
        out.param.push(decayed - s.lr * update);
        out.m.push(m1);
        out.v.push(v1);
    }
    Some(out)
}

fn training_step_outputs(i: &Inputs<'_>) -> Option<Outputs> {
    let x = i.buffer("x")?;
    let (rows, features) = dims2(x)?;
    let (_, classes) = dims2(i.buffer("w")?)?;
    let settings = AdamW::of(i, 1.0)?;
    let start = Stepped {
        param: i.input("w")?,
        m: i.input("m")?,
        v: i.input("v")?,
    };
    let losses = train_classifier(
        &Classifier {
            x: &x.init.clone()?,
            targets: &i.input("targets")?,
            rows,
            features,
            classes,
        },
        &settings,
        start,
        i.buffer("losses")?.len(),
    )?;
    outputs([("losses", losses)])
}

/// A linear classifier's data: `x` (rows × features) and each row's class.
struct Classifier<'a> {
    x: &'a [f64],
    targets: &'a [f64],
    rows: usize,
    features: usize,
    classes: usize,
}

impl Classifier<'_> {
    /// The mean cross-entropy loss over the rows of logits = x · w, and its
    /// gradient with respect to w (features × classes): the product's
    /// backward, xᵀ · dlogits, over the rows' count.
    fn loss_and_gradient(&self, w: &[f64]) -> Option<(f64, Vec<f64>)> {
        let Classifier {
            x,
            rows,
            features,
            classes,
            ..
        } = *self;
        let logits: Vec<f64> = (0..rows * classes)
            .map(|k| {
                let (r, c) = (k / classes, k % classes);
                (0..features)
                    .map(|f| x[r * features + f] * w[f * classes + c])
                    .sum()
            })
            .collect();
        let (loss, dlogits) = cross_entropy(&logits, self.targets, (rows, classes))?;
        let dw = (0..features * classes)
            .map(|k| {
                let (f, c) = (k / classes, k % classes);
                let sum: f64 = (0..rows)
                    .map(|r| x[r * features + f] * dlogits[r * classes + c])
                    .sum();
                sum / rows as f64
            })
            .collect();
        Some((loss.iter().sum::<f64>() / rows as f64, dw))
    }
}

/// `rounds` rounds of training from `start`: each round's mean loss, taken
/// before that round's AdamW step (step numbers 1, 2, …) moves the weights.
fn train_classifier(
    data: &Classifier<'_>,
    settings: &AdamW,
    start: Stepped,
    rounds: usize,
) -> Option<Vec<f64>> {
    let mut state = start;
    let mut losses = Vec::with_capacity(rounds);
    for round in 1..=rounds {
        let (loss, dw) = data.loss_and_gradient(&state.param)?;
        losses.push(loss);
        let settings = AdamW {
            step: round as f64,
            ..*settings
        };
        state = adamw(&settings, &state.param, &dw, &state.m, &state.v)?;
    }
    Some(losses)
}

fn attention_backward_outputs(i: &Inputs<'_>) -> Option<Outputs> {
    let q = i.buffer("q")?;
    let grads = attention_backward(
        q.init.as_deref()?,
        &i.input("k")?,
        &i.input("v")?,
        &i.input("dout")?,
        &q.shape,
    )?;
    outputs([("dq", grads.dq), ("dk", grads.dk), ("dv", grads.dv)])
}

/// Attention's three input gradients.
struct AttentionGrads {
    dq: Vec<f64>,
    dk: Vec<f64>,
    dv: Vec<f64>,
}

/// Attention's four tensors, each `[heads, seq, dim]` flattened, as the
/// gradients read them.
struct AttentionInputs<'a> {
    q: &'a [f64],
    k: &'a [f64],
    v: &'a [f64],
    dout: &'a [f64],
    heads: usize,
    seq: usize,
    dim: usize,
}

/// One query row's share of the backward pass: its softmax weights P and
/// their gradient through the softmax, dS (unscaled by 1 / √dim).
struct QueryRow {
    p: Vec<f64>,
    ds: Vec<f64>,
}

impl<'a> AttentionInputs<'a> {
    /// None unless `shape` is `[heads, seq, dim]` and the four tensors'
    /// lengths are heads × seq × dim ([`HeadShape::of`], the forward
    /// reference's check).
    fn of(
        q: &'a [f64],
        k: &'a [f64],
        v: &'a [f64],
        dout: &'a [f64],
        shape: &[usize],
    ) -> Option<AttentionInputs<'a>> {
        let HeadShape { heads, seq, dim } = HeadShape::of(shape, &[q, k, v, dout])?;
        Some(AttentionInputs {
            q,
            k,
            v,
            dout,
            heads,
            seq,
            dim,
        })
    }

    /// Row r of head h, in any of the four tensors.
    fn row(&self, h: usize, r: usize) -> std::ops::Range<usize> {
        (h * self.seq + r) * self.dim..(h * self.seq + r + 1) * self.dim
    }

    /// Query i of head h: P_ij = softmax_j(q_i·k_j / √dim), dP_ij = dout_i·v_j,
    /// and dS_ij = P_ij (dP_ij − Σ_j P_ij dP_ij).
    fn query_row(&self, h: usize, i: usize) -> QueryRow {
        let dot = |a: &[f64], b: &[f64]| a.iter().zip(b).map(|(a, b)| a * b).sum::<f64>();
        let scale = 1.0 / (self.dim as f64).sqrt();
        let (qi, doi) = (&self.q[self.row(h, i)], &self.dout[self.row(h, i)]);
        let keys = 0..self.seq;
        let scores: Vec<f64> = keys
            .clone()
            .map(|j| dot(qi, &self.k[self.row(h, j)]) * scale)
            .collect();
        let max = scores.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let weights: Vec<f64> = scores.iter().map(|s| libm::exp(s - max)).collect();
        let sum: f64 = weights.iter().sum();
        let p: Vec<f64> = weights.iter().map(|w| w / sum).collect();
        let dp: Vec<f64> = keys.map(|j| dot(doi, &self.v[self.row(h, j)])).collect();
        let delta: f64 = p.iter().zip(&dp).map(|(p, d)| p * d).sum();
        let ds = p.iter().zip(&dp).map(|(p, d)| p * (d - delta)).collect();
        QueryRow { p, ds }
    }

    /// Row i of head h of dq: Σ_j dS_ij k_j / √dim.
    fn dq_row(&self, h: usize, i: usize) -> Vec<f64> {
        let scale = 1.0 / (self.dim as f64).sqrt();
        let ds = self.query_row(h, i).ds;
        let mut dq = vec![0.0; self.dim];
        for (j, ds) in ds.iter().enumerate() {
            for (d, k) in dq.iter_mut().zip(&self.k[self.row(h, j)]) {
                *d += ds * k * scale;
            }
        }
        dq
    }
}

/// The gradients of a loss through o = softmax(q kᵀ / √dim) v, every head
/// on its own, given dout. With P the softmax's weights: dv = Pᵀ dout;
/// dP = dout vᵀ; dS = P ⊙ (dP − rowsum(P ⊙ dP)), whose row sum equals
/// dout·o row by row; dq = dS k / √dim and dk = dSᵀ q / √dim.
fn attention_backward(
    q: &[f64],
    k: &[f64],
    v: &[f64],
    dout: &[f64],
    shape: &[usize],
) -> Option<AttentionGrads> {
    let t = AttentionInputs::of(q, k, v, dout, shape)?;
    let scale = 1.0 / (t.dim as f64).sqrt();
    let len = q.len();
    let mut grads = AttentionGrads {
        dq: vec![0.0; len],
        dk: vec![0.0; len],
        dv: vec![0.0; len],
    };
    for h in 0..t.heads {
        for i in 0..t.seq {
            let QueryRow { p, ds } = t.query_row(h, i);
            let (qi, doi) = (t.row(h, i), t.row(h, i));
            for j in 0..t.seq {
                let kj = t.row(h, j);
                for d in 0..t.dim {
                    grads.dq[qi.start + d] += ds[j] * scale * k[kj.start + d];
                    grads.dk[kj.start + d] += ds[j] * scale * q[qi.start + d];
                    grads.dv[kj.start + d] += p[j] * dout[doi.start + d];
                }
            }
        }
    }
    Some(grads)
}

/// `attention_backward`'s dq in whole rows, a sample of them costing about
/// `budget` operations in all (see [`super::sampled`]): a row of dq needs
/// only its own query's scores, where dk and dv need every query's.
pub(super) fn sampled_dq(i: &Inputs<'_>, budget: f64) -> Option<Vec<(usize, f64)>> {
    let q = i.buffer("q")?;
    let (k, v, dout) = (i.input("k")?, i.input("v")?, i.input("dout")?);
    let t = AttentionInputs::of(q.init.as_deref()?, &k, &v, &dout, &q.shape)?;
    let (seq, dim) = (t.seq, t.dim);
    let rows = t.heads * seq;
    let per_row = (4 * seq * dim) as f64;
    let count = ((budget / per_row) as usize).clamp(1, rows);
    Some(
        spread(rows, count)
            .flat_map(|row| {
                let values = t.dq_row(row / seq, row % seq);
                (0..dim).map(move |d| (row * dim + d, values[d]))
            })
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    //! Each gradient against central differences of its forward function:
    //! the reference that judges the kernels is itself judged.

    use super::*;
    use crate::spec::data::Values;

    /// The spec's own random inputs (`random SEED`: quarters in [-4, 4]),
    /// halved, so that logits and products stay modest.
    fn values(seed: u64, len: usize) -> Vec<f64> {
        Values::Random(seed)
            .materialize(len)
            .unwrap()
            .iter()
            .map(|v| v / 2.0)
            .collect()
    }

    /// ∂f/∂v[k] for every k, by central differences.
    fn numeric_gradient(f: impl Fn(&[f64]) -> f64, at: &[f64]) -> Vec<f64> {
        let h = 1e-6;
        (0..at.len())
            .map(|k| {
                let (mut up, mut down) = (at.to_vec(), at.to_vec());
                up[k] += h;
                down[k] -= h;
                (f(&up) - f(&down)) / (2.0 * h)
            })
            .collect()
    }

    fn assert_close(what: &str, analytic: &[f64], numeric: &[f64]) {
        assert_eq!(analytic.len(), numeric.len(), "{what}");
        for (k, (a, n)) in analytic.iter().zip(numeric).enumerate() {
            assert!(
                (a - n).abs() <= 1e-6 * (1.0 + n.abs()),
                "{what}[{k}]: the reference says {a}, finite differences {n}"
            );
        }
    }

    fn softmax(row: &[f64]) -> Vec<f64> {
        let max = row.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let sum: f64 = row.iter().map(|v| (v - max).exp()).sum();
        row.iter().map(|v| (v - max).exp() / sum).collect()
    }

    fn dot(a: &[f64], b: &[f64]) -> f64 {
        a.iter().zip(b).map(|(a, b)| a * b).sum()
    }

    #[test]
    fn softmax_backward_is_the_gradient_of_the_softmax() {
        // (rows, cols): one column, a short row, rows of several lengths.
        for (rows, cols) in [(1, 1), (1, 5), (3, 7), (2, 16)] {
            let x = values(1, rows * cols);
            let dy = values(2, rows * cols);
            let y: Vec<f64> = x.chunks(cols).flat_map(softmax).collect();
            // The loss Σ dy·softmax(x), whose gradient in x is dx.
            let loss = |x: &[f64]| {
                let y: Vec<f64> = x.chunks(cols).flat_map(softmax).collect();
                dot(&y, &dy)
            };
            assert_close(
                &format!("softmax dx {rows}x{cols}"),
                &softmax_backward(&y, &dy, (rows, cols)).unwrap(),
                &numeric_gradient(loss, &x),
            );
        }
    }

    /// Puzzle 29's LayerNorm, in the form the gradients differentiate.
    fn layer_norm(x: &[f64], gamma: &[f64], beta: &[f64], cols: usize) -> Vec<f64> {
        x.chunks(cols)
            .flat_map(|row| {
                let n = cols as f64;
                let mean = row.iter().sum::<f64>() / n;
                let var = row.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n;
                let rstd = 1.0 / (var + LAYER_NORM_EPS).sqrt();
                row.iter()
                    .zip(gamma.iter().zip(beta))
                    .map(move |(v, (g, b))| (v - mean) * rstd * g + b)
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    #[test]
    fn layernorm_backward_is_the_gradient_of_layernorm() {
        for (rows, cols) in [(1, 2), (3, 5), (4, 8)] {
            let (x, dy) = (values(3, rows * cols), values(4, rows * cols));
            let (gamma, beta) = (values(5, cols), values(6, cols));
            let grads = layernorm_backward(&x, &dy, &gamma, (rows, cols)).unwrap();
            let what = |name: &str| format!("LayerNorm {name} {rows}x{cols}");
            assert_close(
                &what("dx"),
                &grads.dx,
                &numeric_gradient(|x| dot(&layer_norm(x, &gamma, &beta, cols), &dy), &x),
            );
            assert_close(
                &what("dgamma"),
                &grads.dgamma,
                &numeric_gradient(|g| dot(&layer_norm(&x, g, &beta, cols), &dy), &gamma),
            );
            assert_close(
                &what("dbeta"),
                &grads.dbeta,
                &numeric_gradient(|b| dot(&layer_norm(&x, &gamma, b, cols), &dy), &beta),
            );
        }
    }

    #[test]
    fn cross_entropy_is_the_loss_and_its_gradient() {
        // Logits near 100 too: the reference subtracts each row's maximum.
        for (rows, cols, offset) in [(1, 1, 0.0), (2, 6, 0.0), (3, 9, 100.0)] {
            let x: Vec<f64> = values(7, rows * cols).iter().map(|v| v + offset).collect();
            let targets: Vec<f64> = (0..rows).map(|r| ((r * 5 + 1) % cols) as f64).collect();
            let (loss, dlogits) = cross_entropy(&x, &targets, (rows, cols)).unwrap();
            // The loss itself: −log of the target's probability.
            for (r, row) in x.chunks(cols).enumerate() {
                let p = softmax(row)[targets[r] as usize];
                assert!(
                    (loss[r] + p.ln()).abs() < 1e-12,
                    "row {r}: {} vs {}",
                    loss[r],
                    -p.ln()
                );
            }
            let total = |x: &[f64]| {
                cross_entropy(x, &targets, (rows, cols))
                    .unwrap()
                    .0
                    .iter()
                    .sum()
            };
            assert_close(
                &format!("cross-entropy dlogits {rows}x{cols}"),
                &dlogits,
                &numeric_gradient(total, &x),
            );
        }
        assert!(
            cross_entropy(&[0.0, 1.0], &[2.0], (1, 2)).is_none(),
            "a target past the row"
        );
    }

    #[test]
    fn adamw_takes_pytorchs_step() {
        let s = AdamW {
            lr: 0.5,
            beta1: 0.5,
            beta2: 0.75,
            eps: 0.0,
            weight_decay: 0.5,
            step: 1.0,
        };
        // Step 1 from zero moments: m = g/2, v = g²/4; the corrections undo
        // both, so the step is lr·sign(g), after a decay to p·(1 − lr·λ).
        let Stepped { param: p, m, v } =
            adamw(&s, &[2.0, -4.0], &[3.0, -1.0], &[0.0, 0.0], &[0.0, 0.0]).unwrap();
        assert_eq!(
            (p, m, v),
            (vec![1.0, -2.5], vec![1.5, -0.5], vec![2.25, 0.25])
        );
        // Step 2 from given moments, by hand: m = 0.5·1 + 0.5·2 = 1.5,
        // v = 0.75·4 + 0.25·4 = 4, corrections 0.75 and 0.4375.
        let s = AdamW { step: 2.0, ..s };
        let Stepped { param: p, m, v } = adamw(&s, &[1.0], &[2.0], &[1.0], &[4.0]).unwrap();
        let update = (1.5 / 0.75) / (4.0f64 / 0.4375).sqrt();
        assert_eq!((m, v), (vec![1.5], vec![4.0]));
        assert!((p[0] - (0.75 - 0.5 * update)).abs() < 1e-15, "{p:?}");
        assert!(
            adamw(&s, &[1.0], &[], &[1.0], &[1.0]).is_none(),
            "lengths differ"
        );
    }

    #[test]
    fn a_training_step_follows_its_gradient_and_its_loss_falls() {
        let (rows, features, classes) = (12, 5, 4);
        let x = values(1, rows * features);
        let targets: Vec<f64> = (0..rows).map(|r| (r * 7 % classes) as f64).collect();
        let data = Classifier {
            x: &x,
            targets: &targets,
            rows,
            features,
            classes,
        };
        let w = values(3, features * classes);
        let (_, dw) = data.loss_and_gradient(&w).unwrap();
        let numeric = numeric_gradient(|w| data.loss_and_gradient(w).unwrap().0, &w);
        assert_close("dw", &dw, &numeric);

        let settings = AdamW {
            lr: 0.02,
            beta1: 0.9,
            beta2: 0.999,
            eps: 1e-8,
            weight_decay: 0.01,
            step: 1.0,
        };
        let zeros = vec![0.0; features * classes];
        let start = Stepped {
            param: zeros.clone(),
            m: zeros.clone(),
            v: zeros,
        };
        let losses = train_classifier(&data, &settings, start, 20).unwrap();
        // From w = 0 every class is equally likely: the loss is ln(classes).
        assert!(
            (losses[0] - (classes as f64).ln()).abs() < 1e-12,
            "{losses:?}"
        );
        assert!(
            losses.windows(2).all(|p| p[1] < p[0]),
            "each round's loss below the last: {losses:?}"
        );
        assert!(losses[19] < 0.8 * losses[0], "{losses:?}");
    }

    /// Attention's output, as Puzzle 36 computes it, in the form the
    /// gradients differentiate.
    fn attention(
        q: &[f64],
        k: &[f64],
        v: &[f64],
        (heads, seq, dim): (usize, usize, usize),
    ) -> Vec<f64> {
        let scale = 1.0 / (dim as f64).sqrt();
        let mut o = Vec::new();
        for h in 0..heads {
            let at = |t: &[f64], r: usize| t[(h * seq + r) * dim..][..dim].to_vec();
            for i in 0..seq {
                let scores: Vec<f64> = (0..seq)
                    .map(|j| dot(&at(q, i), &at(k, j)) * scale)
                    .collect();
                let p = softmax(&scores);
                o.extend((0..dim).map(|d| (0..seq).map(|j| p[j] * at(v, j)[d]).sum::<f64>()));
            }
        }
        o
    }

    #[test]
    fn attention_backward_is_the_gradient_of_attention() {
        // (heads, seq, dim): one key, a short head, two heads.
        for shape @ (heads, seq, dim) in [(1, 1, 2), (1, 4, 3), (2, 3, 4)] {
            let len = heads * seq * dim;
            let (q, k, v, dout) = (
                values(1, len),
                values(2, len),
                values(3, len),
                values(4, len),
            );
            let grads = attention_backward(&q, &k, &v, &dout, &[heads, seq, dim]).unwrap();
            // The loss Σ dout·o, whose gradients in q, k and v are dq, dk, dv.
            let loss = |q: &[f64], k: &[f64], v: &[f64]| dot(&attention(q, k, v, shape), &dout);
            let name = |t: &str| format!("attention {t} {heads}x{seq}x{dim}");
            assert_close(
                &name("dq"),
                &grads.dq,
                &numeric_gradient(|x| loss(x, &k, &v), &q),
            );
            assert_close(
                &name("dk"),
                &grads.dk,
                &numeric_gradient(|x| loss(&q, x, &v), &k),
            );
            assert_close(
                &name("dv"),
                &grads.dv,
                &numeric_gradient(|x| loss(&q, &k, x), &v),
            );
        }
        assert!(
            attention_backward(&[1.0], &[1.0], &[1.0], &[], &[1, 1, 1]).is_none(),
            "dout missing"
        );
    }
}
