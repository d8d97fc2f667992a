//! A result's rows of values, a buffer's over the expected ones, set in
//! columns: each value padded to the width of the one it is compared with,
//! so that `out: [  ·, …]` stands over `expected: [0.0, …]` value by value
//! and a reader compares down a column, not along two lines of different
//! rhythms.

/// `got` and `expected` as shown (`[0.0, 1.0, …, 99.0] (100 values)`), each
/// value right-aligned to the wider of the pair. Rows that do not have the
/// same values in the same places (one abridged, the other not) are
/// returned as they are.
pub(super) fn line_up(got: &str, expected: &str) -> (String, String) {
    let (Some(a), Some(b)) = (split(got), split(expected)) else {
        return (got.to_string(), expected.to_string());
    };
    if a.1.len() != b.1.len() {
        return (got.to_string(), expected.to_string());
    }
    let mut rows = (String::from("["), String::from("["));
    for (k, (x, y)) in a.1.iter().zip(&b.1).enumerate() {
        let width = x.chars().count().max(y.chars().count());
        let sep = if k == 0 { "" } else { ", " };
        rows.0.push_str(&format!("{sep}{x:>width$}"));
        rows.1.push_str(&format!("{sep}{y:>width$}"));
    }
    rows.0.push_str(a.0);
    rows.1.push_str(b.0);
    rows
}

/// `[v, v, …] tail` as its values and what follows the closing bracket
/// (`] (100 values)`).
fn split(row: &str) -> Option<(&str, Vec<&str>)> {
    let inner = row.strip_prefix('[')?;
    let close = inner.rfind(']')?;
    Some((&inner[close..], inner[..close].split(", ").collect()))
}

#[cfg(test)]
mod tests {
    use super::line_up;

    #[test]
    fn values_stand_in_columns() {
        let (got, expected) = line_up("[·, ·, 3.0]", "[0.0, 12.0, 3.0]");
        assert_eq!(got, "[  ·,    ·, 3.0]");
        assert_eq!(expected, "[0.0, 12.0, 3.0]");
        // An abridged row keeps its count; the marks of what is left out line up.
        let (got, expected) = line_up(
            "[·, 1.0, … 98 more …, 99.0] (101 values)",
            "[0.0, 1.0, … 98 more …, 100.0] (101 values)",
        );
        assert_eq!(got, "[  ·, 1.0, … 98 more …,  99.0] (101 values)");
        assert_eq!(expected, "[0.0, 1.0, … 98 more …, 100.0] (101 values)");
    }

    #[test]
    fn rows_that_differ_in_shape_are_left_alone() {
        let rows = line_up("[1.0, 2.0]", "[1.0]");
        assert_eq!(rows, ("[1.0, 2.0]".to_string(), "[1.0]".to_string()));
        let rows = line_up("nothing", "[1.0]");
        assert_eq!(rows.0, "nothing");
    }
}
