//! Stencil references: each output from a window of the input around it
//! (pooling, 1-D and 2-D convolutions, a row's smoothing).

use super::{Reference, dims2, out};

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        "pooling" => |i| out(pooling(&i.input("a")?, 3)),
        "conv1d" => |i| out(conv1d(&i.input("a")?, &i.input("b")?)),
        // Weights `w` (the async-copy chapter's name for the 5-tap kernel).
        "conv1d_centered" => |i| out(conv1d_centered(&i.input("a")?, &i.input("w")?)),
        "conv2d" => |i| {
            let (image, kernel) = (i.buffer("a")?, i.buffer("b")?);
            out(conv2d(
                &image.init.clone()?,
                dims2(image)?,
                &kernel.init.clone()?,
                dims2(kernel)?,
            ))
        },
        // Part IV: `iters` passes of the 1-2-1 stencil; one when the spec has no `iters`.
        "smooth_rows" => |i| {
            let a = i.buffer("a")?;
            let iters = i.scalar("iters").map_or(1, |v| v as usize);
            out(smooth_rows(&a.init.clone()?, dims2(a)?, iters))
        },
        _ => return None,
    };
    Some(reference)
}

/// out[i] = a[i - window + 1] + … + a[i], with the window cut at the start.
fn pooling(a: &[f64], window: usize) -> Vec<f64> {
    (0..a.len())
        .map(|i| a[i.saturating_sub(window - 1)..=i].iter().sum())
        .collect()
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
pub(super) fn conv2d(
    a: &[f64],
    (h, w): (usize, usize),
    k: &[f64],
    (kh, kw): (usize, usize),
) -> Vec<f64> {
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
