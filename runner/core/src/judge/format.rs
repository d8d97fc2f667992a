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

/// Like [`format_values`], but a long buffer (a stress run's thousand
/// elements) shows its head and tail only; the problems list the wrong indices.
pub fn format_values_short(values: &[Option<f64>]) -> String {
    const LONG: usize = 64;
    const HEAD: usize = 24;
    const TAIL: usize = 8;
    if values.len() <= LONG {
        return format_values(values);
    }
    let head = format_values(&values[..HEAD]);
    let tail = format_values(&values[values.len() - TAIL..]);
    format!(
        "{}, … {} more …, {} ({} values)",
        head.trim_end_matches(']'),
        values.len() - HEAD - TAIL,
        tail.trim_start_matches('['),
        values.len()
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
