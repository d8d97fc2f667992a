//! CUDA's `printf` on the checker: the format string read from memory, the
//! arguments from the buffer NVRTC packs them into (each at its own
//! alignment; `float` passed as `double`, `char` and `short` as `int`), and
//! the text formatted as the device's printf formats it. Memory is read
//! through the caller's `peek` (the interpreter's unchecked read).

/// What a conversion takes from the argument buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arg {
    /// `%d %i %u %x %X %o %c` (4 bytes), with `l`/`ll`/`z` 8 bytes.
    Int { bytes: u32, signed: bool },
    /// `%f %e %g %a` and capitals: a double.
    Float,
    /// `%s`: the address of a string; `%p`: a pointer.
    Pointer,
}

/// One piece of a format: text as is, or a conversion and its argument.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Text(String),
    Conversion {
        /// The conversion as written, e.g. `%-8.3f`.
        spec: String,
        conv: char,
        arg: Arg,
    },
}

/// One `printf`: its text, the format read at `format` and the arguments
/// at `args` (generic addresses, read through `peek(address, bytes)`). An address that points at
/// nothing the checker can read prints as `(unreadable)`.
pub fn print(format: u64, args: u64, peek: &dyn Fn(u64, usize) -> Option<u64>) -> String {
    let Some(text) = string(format, peek) else {
        return "(printf: unreadable format)\n".into();
    };
    let mut out = String::new();
    let mut at = args;
    for piece in pieces(&text) {
        let (spec, conv, arg) = match piece {
            Piece::Text(t) => {
                out.push_str(&t);
                continue;
            }
            Piece::Conversion { spec, conv, arg } => (spec, conv, arg),
        };
        let bytes = match arg {
            Arg::Int { bytes, .. } => bytes,
            Arg::Float | Arg::Pointer => 8,
        };
        at = at.next_multiple_of(u64::from(bytes));
        let Some(raw) = peek(at, bytes as usize) else {
            out.push_str("(unreadable)");
            continue;
        };
        at += u64::from(bytes);
        let value = match (arg, conv) {
            (Arg::Float, _) => Value::Float(f64::from_bits(raw)),
            (Arg::Pointer, 's') => {
                Value::Text(string(raw, peek).unwrap_or_else(|| "(null)".into()))
            }
            (Arg::Pointer, _) => Value::Pointer(raw),
            (Arg::Int { .. }, _) => Value::Int(raw),
        };
        out.push_str(&self::format(&spec, conv, &value));
    }
    out
}

/// The NUL-terminated string at `addr`, up to 4 KiB.
fn string(addr: u64, peek: &dyn Fn(u64, usize) -> Option<u64>) -> Option<String> {
    let mut bytes = Vec::new();
    for k in 0..4096 {
        match peek(addr + k, 1)? as u8 {
            0 => break,
            b => bytes.push(b),
        }
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// A format string split into pieces.
pub fn pieces(format: &str) -> Vec<Piece> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            text.push(c);
            continue;
        }
        if chars.peek() == Some(&'%') {
            chars.next();
            text.push('%');
            continue;
        }
        let mut spec = String::from("%");
        let mut long = 0;
        let conv = loop {
            let Some(c) = chars.next() else { break None };
            spec.push(c);
            match c {
                'l' | 'z' | 'j' | 't' => long += 1,
                'h' => {}
                'd' | 'i' | 'u' | 'x' | 'X' | 'o' | 'c' | 'f' | 'F' | 'e' | 'E' | 'g' | 'G'
                | 'a' | 'A' | 's' | 'p' => break Some(c),
                '-' | '+' | ' ' | '#' | '.' | '0'..='9' => {}
                _ => break None,
            }
        };
        let Some(conv) = conv else {
            // Not a conversion printf knows: printed as written.
            text.push_str(&spec);
            continue;
        };
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        let arg = match conv {
            'f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A' => Arg::Float,
            's' | 'p' => Arg::Pointer,
            'c' => Arg::Int {
                bytes: 4,
                signed: true,
            },
            _ => Arg::Int {
                bytes: if long > 0 { 8 } else { 4 },
                signed: matches!(conv, 'd' | 'i'),
            },
        };
        out.push(Piece::Conversion { spec, conv, arg });
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    out
}

/// The flags, width and precision of a conversion.
#[derive(Debug, Default, Clone, Copy)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

fn spec_of(written: &str) -> Spec {
    let mut s = Spec::default();
    let body = &written[1..written.len() - 1];
    let mut chars = body.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            '-' => s.left = true,
            '+' => s.plus = true,
            ' ' => s.space = true,
            '#' => s.alt = true,
            '0' => s.zero = true,
            _ => break,
        }
        chars.next();
    }
    let number = |chars: &mut std::iter::Peekable<std::str::Chars<'_>>| {
        let mut n = 0usize;
        while let Some(d) = chars.peek().and_then(|c| c.to_digit(10)) {
            n = n.saturating_mul(10).saturating_add(d as usize).min(4096);
            chars.next();
        }
        n
    };
    s.width = number(&mut chars);
    if chars.peek() == Some(&'.') {
        chars.next();
        s.precision = Some(number(&mut chars));
    }
    s
}

/// A value for one conversion, read from the argument buffer.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Int(u64),
    Float(f64),
    /// `%s`'s text (read by the caller from the address), or `%p`'s address.
    Text(String),
    Pointer(u64),
}

/// One conversion's text.
pub fn format(written: &str, conv: char, value: &Value) -> String {
    let s = spec_of(written);
    let (sign, body) = match (conv, value) {
        ('c', Value::Int(v)) => (String::new(), char::from(*v as u8).to_string()),
        ('d' | 'i', Value::Int(v)) => {
            let long = written.contains('l') || written.contains('z');
            let n = if long {
                *v as i64
            } else {
                i64::from(*v as u32 as i32)
            };
            let digits = n.unsigned_abs().to_string();
            (sign_of(n < 0, s), precise(digits, s.precision))
        }
        ('u' | 'x' | 'X' | 'o', Value::Int(v)) => {
            let long = written.contains('l') || written.contains('z');
            let n = if long { *v } else { u64::from(*v as u32) };
            let digits = match conv {
                'x' => format!("{n:x}"),
                'X' => format!("{n:X}"),
                'o' => format!("{n:o}"),
                _ => n.to_string(),
            };
            let prefix = match (s.alt && n != 0, conv) {
                (true, 'x') => "0x",
                (true, 'X') => "0X",
                (true, 'o') => "0",
                _ => "",
            };
            (prefix.to_string(), precise(digits, s.precision))
        }
        ('f' | 'F' | 'e' | 'E' | 'g' | 'G' | 'a' | 'A', Value::Float(x)) => {
            let body = float(*x, conv, s.precision.unwrap_or(6), s.alt);
            (sign_of(x.is_sign_negative() && !x.is_nan(), s), body)
        }
        ('s', Value::Text(t)) => (
            String::new(),
            match s.precision {
                Some(p) => t.chars().take(p).collect(),
                None => t.clone(),
            },
        ),
        ('p', Value::Pointer(a)) => (String::new(), format!("0x{a:x}")),
        _ => (String::new(), String::new()),
    };
    let len = sign.chars().count() + body.chars().count();
    let pad = s.width.saturating_sub(len);
    let numeric = !matches!(conv, 's' | 'c' | 'p');
    if s.left {
        format!("{sign}{body}{}", " ".repeat(pad))
    } else if s.zero && numeric && (s.precision.is_none() || "fFeEgGaA".contains(conv)) {
        format!("{sign}{}{body}", "0".repeat(pad))
    } else {
        format!("{}{sign}{body}", " ".repeat(pad))
    }
}

fn sign_of(negative: bool, s: Spec) -> String {
    match (negative, s.plus, s.space) {
        (true, _, _) => "-".into(),
        (false, true, _) => "+".into(),
        (false, false, true) => " ".into(),
        _ => String::new(),
    }
}

/// At least `precision` digits, zeros in front.
fn precise(digits: String, precision: Option<usize>) -> String {
    match precision {
        Some(0) if digits == "0" => String::new(),
        Some(p) if digits.len() < p => format!("{}{digits}", "0".repeat(p - digits.len())),
        _ => digits,
    }
}

/// `%f`, `%e`, `%g` (and `%a`, as `%e`) of |x|, the sign left to the caller.
fn float(x: f64, conv: char, precision: usize, alt: bool) -> String {
    let x = x.abs();
    let upper = conv.is_ascii_uppercase();
    let text = if x.is_nan() {
        "nan".to_string()
    } else if x.is_infinite() {
        "inf".to_string()
    } else {
        match conv.to_ascii_lowercase() {
            'f' => format!("{x:.precision$}"),
            'e' | 'a' => exponent(x, precision),
            _ => {
                // %g: %e if the exponent is below -4 or at least the
                // precision, else %f; trailing zeros go unless `#`.
                let p = precision.max(1);
                let e = if x == 0.0 {
                    0
                } else {
                    let rounded = exponent(x, p - 1);
                    rounded
                        .rsplit_once('e')
                        .and_then(|(_, e)| e.parse::<i32>().ok())
                        .unwrap_or(0)
                };
                let t = if e < -4 || e >= p as i32 {
                    exponent(x, p - 1)
                } else {
                    let decimals = (p as i32 - 1 - e).max(0) as usize;
                    format!("{x:.decimals$}")
                };
                if alt { t } else { trim_zeros(&t) }
            }
        }
    };
    if upper { text.to_uppercase() } else { text }
}

/// `d.ddde±XX`, C's form (at least two exponent digits).
fn exponent(x: f64, precision: usize) -> String {
    let t = format!("{x:.precision$e}");
    let (mantissa, e) = t.split_once('e').unwrap_or((&t, "0"));
    let e: i32 = e.parse().unwrap_or(0);
    let sign = if e < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", e.abs())
}

fn trim_zeros(t: &str) -> String {
    let (mantissa, exp) = match t.split_once('e') {
        Some((m, e)) => (m, format!("e{e}")),
        None => (t, String::new()),
    };
    let m = if mantissa.contains('.') {
        mantissa.trim_end_matches('0').trim_end_matches('.')
    } else {
        mantissa
    };
    format!("{m}{exp}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (conversion as written, value, what C's printf prints)
    #[test]
    fn conversions_table() {
        let cases: [(&str, Value, &str); 22] = [
            ("%d", Value::Int(u64::from(-5i32 as u32)), "-5"),
            ("%u", Value::Int(7), "7"),
            ("%5d", Value::Int(42), "   42"),
            ("%-5d|", Value::Int(42), "42   "),
            ("%05d", Value::Int(42), "00042"),
            ("%+d", Value::Int(3), "+3"),
            ("%.3d", Value::Int(7), "007"),
            ("%x", Value::Int(255), "ff"),
            ("%#X", Value::Int(255), "0XFF"),
            ("%lld", Value::Int(-3i64 as u64), "-3"),
            ("%lu", Value::Int(1 << 40), "1099511627776"),
            ("%c", Value::Int(u64::from(b'x')), "x"),
            ("%f", Value::Float(1.5), "1.500000"),
            ("%.2f", Value::Float(-0.125), "-0.12"),
            ("%8.3f", Value::Float(1.23456), "   1.235"),
            ("%e", Value::Float(12345.678), "1.234568e+04"),
            ("%g", Value::Float(0.0001), "0.0001"),
            ("%g", Value::Float(1e-5), "1e-05"),
            ("%g", Value::Float(100.0), "100"),
            ("%f", Value::Float(f64::NAN), "nan"),
            ("%s", Value::Text("hi".into()), "hi"),
            ("%p", Value::Pointer(0x10), "0x10"),
        ];
        for (written, value, want) in cases {
            let spec = written.trim_end_matches('|');
            let conv = spec.chars().last().unwrap();
            assert_eq!(
                format(spec, conv, &value),
                want.trim_end_matches('|'),
                "{written}"
            );
        }
    }

    #[test]
    fn pieces_table() {
        let got = pieces("t%u: %5.2f %s 100%% %lld %q\n");
        let kinds: Vec<String> = got
            .iter()
            .map(|p| match p {
                Piece::Text(t) => format!("T{t:?}"),
                Piece::Conversion { spec, arg, .. } => format!("C{spec}:{arg:?}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "T\"t\"",
                "C%u:Int { bytes: 4, signed: false }",
                "T\": \"",
                "C%5.2f:Float",
                "T\" \"",
                "C%s:Pointer",
                "T\" 100% \"",
                "C%lld:Int { bytes: 8, signed: true }",
                "T\" %q\\n\"",
            ]
        );
    }
}
