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

/// "1 element", "16,384 elements": a count with its noun, in the right number.
pub fn plural(n: usize, noun: &str) -> String {
    let s = if n == 1 { "" } else { "s" };
    format!("{} {noun}{s}", thousands(n as u64))
}

/// A large count in decimal units for a table: `137.4 G`, `786.4 k`, `192`.
/// One decimal in the largest unit that keeps the number at least 1, so a
/// column of them reads at a glance.
pub fn si(n: f64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")];
    for (scale, unit) in UNITS {
        if n.abs() >= scale {
            return format!("{:.1} {unit}", n / scale);
        }
    }
    if n.fract() == 0.0 {
        format!("{n:.0}")
    } else {
        format!("{n:.1}")
    }
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
    fn plural_and_si_table() {
        assert_eq!(plural(1, "element"), "1 element");
        assert_eq!(plural(16384, "element"), "16,384 elements");
        assert_eq!(plural(0, "element"), "0 elements");
        for (n, text) in [
            (137438953472.0, "137.4 G"),
            (17179869184.0, "17.2 G"),
            (786432.0, "786.4 k"),
            (12288.0, "12.3 k"),
            (192.0, "192"),
            (0.5, "0.5"),
        ] {
            assert_eq!(si(n), text, "{n}");
        }
    }

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
