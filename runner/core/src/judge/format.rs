//! Numbers as people read them: output values the way the puzzles' source
//! prints them (`10.0`, `nan`), with `·` for an element never written.

/// Numbers the way the Mojo GPU Puzzles book prints them: `10.0`, `0.5`, `nan`.
pub fn format_value(v: f64) -> String {
    if v.is_nan() {
        "nan".into()
    } else if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.1}")
    } else {
        format!("{}", (v * 1e6).round() / 1e6)
    }
}

/// `[10.0, 11.0, ·, 13.0]`: `·` marks an element never written.
pub fn format_values(values: &[Option<f64>]) -> String {
    let items: Vec<String> = values
        .iter()
        .map(|v| v.map(format_value).unwrap_or_else(|| "·".into()))
        .collect();
    format!("[{}]", items.join(", "))
}

/// `text` safe inside HTML or SVG: `&`, `<` and `>` as entities.
pub fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// Buffers longer than this are shown by their first [`HEAD`] and last [`TAIL`] values.
pub const LONG: usize = 64;
pub const HEAD: usize = 24;
pub const TAIL: usize = 8;

/// Like [`format_values`], but a long buffer (a stress run's thousand
/// elements) shows its head and tail only; the problems list the wrong indices.
pub fn format_values_short(values: &[Option<f64>]) -> String {
    if values.len() <= LONG {
        return format_values(values);
    }
    let mut kept = values[..HEAD].to_vec();
    kept.extend_from_slice(&values[values.len() - TAIL..]);
    format_head_tail(&kept, values.len() - HEAD - TAIL)
}

/// `[0.0, …, 23.0, … 68 more …, 92.0, …, 99.0] (100 values)`: `kept` holds
/// the head and the tail, with `left_out` values between them.
pub fn format_head_tail(kept: &[Option<f64>], left_out: usize) -> String {
    if left_out == 0 {
        return format_values(kept);
    }
    let split = kept.len().saturating_sub(TAIL);
    let head = format_values(&kept[..split]);
    let tail = format_values(&kept[split..]);
    format!(
        "{}, … {} more …, {} ({} values)",
        head.trim_end_matches(']'),
        crate::quantity::thousands(left_out as u64),
        tail.trim_start_matches('['),
        crate::quantity::thousands((kept.len() + left_out) as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_buffers_are_shortened() {
        let values: Vec<Option<f64>> = (0..100).map(|i| Some(i as f64)).collect();
        let text = format_values_short(&values);
        assert!(text.starts_with("[0.0, 1.0,"), "{text}");
        assert!(text.contains("23.0, … 68 more …, 92.0"), "{text}");
        assert!(text.ends_with("99.0] (100 values)"), "{text}");
        assert_eq!(format_values_short(&values[..3]), "[0.0, 1.0, 2.0]");
        let long: Vec<Option<f64>> = vec![None; 16384];
        assert!(
            format_values_short(&long)
                .ends_with("… 16,352 more …, ·, ·, ·, ·, ·, ·, ·, ·] (16,384 values)"),
            "{}",
            format_values_short(&long)
        );
    }

    #[test]
    fn formats_like_the_book() {
        assert_eq!(
            format_values(&[Some(10.0), None, Some(0.5)]),
            "[10.0, ·, 0.5]"
        );
        assert_eq!(format_value(1.0 / 3.0), "0.333333");
    }
}
