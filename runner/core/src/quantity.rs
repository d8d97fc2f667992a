//! Counts and sizes as people read them: `16,777,216` elements, `1.5 KiB`.
//! Used wherever a limit is stated, from the spec's size checks to the
//! benchmark's tables.

/// 16777216 as 16,777,216.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Bytes in the largest binary unit that keeps a whole number: `3 GiB`, `512 KiB`.
pub fn bytes(n: u64) -> String {
    const UNITS: [&str; 5] = ["bytes", "KiB", "MiB", "GiB", "TiB"];
    let mut value = n as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 || value >= 100.0 {
        format!("{value:.0} {}", UNITS[unit])
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_table() {
        for (n, text) in [
            (0, "0"),
            (999, "999"),
            (1000, "1,000"),
            (16777216, "16,777,216"),
            (1099511627776, "1,099,511,627,776"),
        ] {
            assert_eq!(thousands(n), text);
        }
    }

    #[test]
    fn bytes_table() {
        for (n, text) in [
            (12, "12 bytes"),
            (1536, "1.5 KiB"),
            (64 << 20, "64.0 MiB"),
            (200 << 30, "200 GiB"),
            (32 << 40, "32.0 TiB"),
        ] {
            assert_eq!(bytes(n), text);
        }
    }
}
