//! The matrix product's reference, whole or at a sample of its elements
//! (a bench size's product is too large to compute whole on the CPU), and
//! the scaled product of FP8 GEMMs: `out = scale_a · scale_b · (a · btᵀ)`,
//! with b given transposed (`bt`, its columns as rows) as FP8 products
//! take it.

use super::{Inputs, Reference, dims2, out, spread};

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "matmul" => |i| {
            let (a, b) = (i.buffer("a")?, i.buffer("b")?);
            out(matmul(
                &a.init.clone()?,
                dims2(a)?,
                &b.init.clone()?,
                dims2(b)?,
            )?)
        },
        "matmul_scaled" => |i| {
            let scaled = Scaled::of(i)?;
            let n = scaled.n;
            out((0..scaled.m * n)
                .map(|flat| scaled.at(flat / n, flat % n))
                .collect())
        },
        _ => return None,
    };
    Some(reference)
}

/// `matmul_scaled`'s inputs: a (m × k), bt (n × k) and the two scales.
struct Scaled {
    a: Vec<f64>,
    bt: Vec<f64>,
    scale: f64,
    m: usize,
    n: usize,
    k: usize,
}

impl Scaled {
    fn of(i: &Inputs<'_>) -> Option<Self> {
        let (a, bt) = (i.buffer("a")?, i.buffer("bt")?);
        let ((m, k), (n, k2)) = (dims2(a)?, dims2(bt)?);
        (k == k2).then_some(())?;
        Some(Scaled {
            a: a.init.clone()?,
            bt: bt.init.clone()?,
            scale: i.scalar("scale_a")? * i.scalar("scale_b")?,
            m,
            n,
            k,
        })
    }

    /// out[row][col]: row of a against row `col` of bt, times both scales.
    fn at(&self, row: usize, col: usize) -> f64 {
        let (a, bt) = (
            &self.a[row * self.k..][..self.k],
            &self.bt[col * self.k..][..self.k],
        );
        self.scale * a.iter().zip(bt).map(|(x, y)| x * y).sum::<f64>()
    }
}

/// `matmul_scaled`'s outputs at a sample of elements costing about
/// `budget` operations in all.
pub(super) fn sampled_scaled(i: &Inputs<'_>, budget: f64) -> Option<Vec<(usize, f64)>> {
    let scaled = Scaled::of(i)?;
    let (m, n, k) = (scaled.m, scaled.n, scaled.k);
    let count = ((budget / (2 * k) as f64) as usize).clamp(1, (m * n).max(1));
    Some(
        spread(m * n, count)
            .map(|flat| (flat, scaled.at(flat / n, flat % n)))
            .collect(),
    )
}

/// `matmul`'s outputs at a sample of elements costing about `budget`
/// operations in all (see [`super::sampled`]).
pub(super) fn sampled(i: &Inputs<'_>, budget: f64) -> Option<Vec<(usize, f64)>> {
    let (a, b) = (i.buffer("a")?, i.buffer("b")?);
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

/// out = a · b for row-major a (m×k) and b (k×n); `None` when the inner sizes differ.
pub(super) fn matmul(
    a: &[f64],
    (m, k): (usize, usize),
    b: &[f64],
    (k2, n): (usize, usize),
) -> Option<Vec<f64>> {
    if k != k2 {
        return None;
    }
    // Row by row, b's rows streamed in order (the compiler vectorizes the
    // inner loop). Each element still adds its products in the order of i,
    // from the -0.0 `Iterator::sum` starts at, so the bits are a dot
    // product's.
    let mut out = vec![-0.0; m * n];
    for row in 0..m {
        let out_row = &mut out[row * n..(row + 1) * n];
        for i in 0..k {
            let x = a[row * k + i];
            for (o, y) in out_row.iter_mut().zip(&b[i * n..(i + 1) * n]) {
                *o += x * y;
            }
        }
    }
    Some(out)
}
