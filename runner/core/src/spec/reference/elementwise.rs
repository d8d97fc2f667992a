//! Element-wise references: each output from its own element, or from one
//! other element at a fixed place (a neighbour, the transposed place).

use super::{Reference, dims2, out};

/// This family's reference called `name`, if it has one.
pub(super) fn named(name: &str) -> Option<Reference> {
    let reference: Reference = match name {
        // Element-wise: out = a + 10, whatever the shape.
        "p01_map" | "p03_guard" | "p04_map_2d" | "p06_blocks" | "p07_blocks_2d" | "p08_shared" => {
            |i| out(i.input("a")?.iter().map(|v| v + 10.0).collect())
        }
        "p02_zip" => |i| {
            out(i
                .input("a")?
                .iter()
                .zip(i.input("b")?)
                .map(|(a, b)| a + b)
                .collect())
        },
        // out[row][col] = a[col] + b[row]
        "p05_broadcast" => |i| {
            let (a, b) = (i.input("a")?, i.input("b")?);
            out(b
                .iter()
                .flat_map(|row| a.iter().map(move |col| col + row))
                .collect())
        },
        "reverse" => |i| out(i.input("a")?.iter().rev().copied().collect()),
        "shift_left" => |i| out(shift_left(&i.input("a")?)),
        // Puzzle 15 (memory access patterns).
        "transpose" => |i| {
            let a = i.buffer("a")?;
            out(transpose(&a.init.clone()?, dims2(a)?))
        },
        "two_branches" => |i| out(two_branches(&i.input("a")?, i.scalar("iters")? as usize)),
        // Part IV: a warp's shuffle.
        "forward_difference" => |i| out(forward_difference(&i.input("a")?)),
        // Part VI: each float rounded to the nearest BF16, ties to even (the
        // `half` crate's conversion), and widened back: what the kernel writes.
        "round_bf16" => |i| {
            out(i
                .input("a")?
                .iter()
                .map(|&v| half::bf16::from_f32(v as f32).to_f64())
                .collect())
        },
        _ => return None,
    };
    Some(reference)
}

/// out[i] = a[i + 1]: every element one place to the left, and 0 in the last.
fn shift_left(a: &[f64]) -> Vec<f64> {
    (0..a.len())
        .map(|i| a.get(i + 1).copied().unwrap_or(0.0))
        .collect()
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

/// out[i] = a[i + 1] − a[i], with a[size] taken as 0.
fn forward_difference(a: &[f64]) -> Vec<f64> {
    (0..a.len())
        .map(|i| a.get(i + 1).copied().unwrap_or(0.0) - a[i])
        .collect()
}
