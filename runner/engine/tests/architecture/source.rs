//! A source file as the architecture rules see it: every line of library
//! code, and nothing of a test module.
//!
//! A test module is either a file declared for tests (`#[cfg(test)] mod
//! tests;`, left out whole by the caller) or an inline block under
//! `#[cfg(test)]` (`mod tests { … }`), cut here by matching its braces.
//! Braces inside strings, characters and comments are not counted, so a
//! test module of WGSL or PTX text is cut where it really ends, and code
//! after it still counts. A declaration never cuts anything: cutting at
//! `mod tests;` once hid 600 lines of a preprocessor module from the size
//! cap and the cycle check.

/// `text` with every byte inside a comment, string or character literal
/// made a space (newlines kept), so braces and attributes can be found by
/// plain search. Byte offsets are those of `text`.
pub fn blank_literals(text: &str) -> Vec<u8> {
    let src = text.as_bytes();
    let mut out = src.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for b in &mut out[from..to.min(src.len())] {
            if *b != b'\n' {
                *b = b' ';
            }
        }
    };
    let ident = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut i = 0;
    while i < src.len() {
        let rest = &src[i..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|&b| b == b'\n')
                .map_or(src.len(), |n| i + n);
            blank(&mut out, i, end);
            i = end;
        } else if rest.starts_with(b"/*") {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, i);
            while j < src.len() {
                if src[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if src[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, i, j);
            i = j;
        } else if let Some(end) = raw_string_end(src, i) {
            blank(&mut out, i, end);
            i = end;
        } else if src[i] == b'"' {
            let mut j = i + 1;
            while j < src.len() && src[j] != b'"' {
                j += if src[j] == b'\\' { 2 } else { 1 };
            }
            blank(&mut out, i, j + 1);
            i = j + 1;
        } else if src[i] == b'\'' {
            // A character literal ('{', '\n', '\u{7d}') or a lifetime ('a).
            let next = src.get(i + 1).copied().unwrap_or(0);
            let width = utf8_width(next);
            if next == b'\\' {
                let mut j = i + 3;
                while j < src.len() && src[j] != b'\'' {
                    j += 1;
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            } else if src.get(i + 1 + width) == Some(&b'\'') {
                blank(&mut out, i, i + 2 + width);
                i += 2 + width;
            } else {
                i += 1;
            }
        } else if ident(src[i]) {
            // A whole word, so the `r` of `bar"` is never read as a raw string.
            // (b"…" and c"…": the quote is read as a string next round.)
            while i < src.len() && ident(src[i]) {
                i += 1;
            }
        } else {
            i += 1;
        }
    }
    out
}

/// Where a raw string (`r"…"`, `r#"…"#`, `br#"…"#`) starting at `at` ends.
fn raw_string_end(src: &[u8], at: usize) -> Option<usize> {
    let before = at.checked_sub(1).map(|p| src[p]);
    if before.is_some_and(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let mut j = at;
    if src.get(j) == Some(&b'b') {
        j += 1;
    }
    if src.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = src[j..].iter().take_while(|&&b| b == b'#').count();
    j += hashes;
    if src.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = j + 1;
    let end = src[body..]
        .windows(close.len())
        .position(|w| w == close.as_slice())
        .map_or(src.len(), |n| body + n + close.len());
    Some(end)
}

/// How many bytes the UTF-8 character starting with `first` takes.
fn utf8_width(first: u8) -> usize {
    match first {
        0xF0..=0xFF => 4,
        0xE0..=0xEF => 3,
        0xC0..=0xDF => 2,
        _ => 1,
    }
}

/// `text` without its inline test modules (`#[cfg(test)]`, any further
/// attributes, then `mod name { … }`, `pub` or not), each cut from its
/// attribute to its closing brace.
pub fn library_text(text: &str) -> String {
    let blanked = blank_literals(text);
    let mut cuts: Vec<(usize, usize)> = Vec::new();
    let mut from = 0;
    while let Some(start) = find(&blanked, b"#[cfg(test)]", from) {
        from = start + 1;
        let mut j = skip_space(&blanked, start + b"#[cfg(test)]".len());
        // Further attributes: `#[allow(…)]`, `#[path = …]`.
        while blanked[j..].starts_with(b"#[") {
            match find(&blanked, b"]", j) {
                Some(close) => j = skip_space(&blanked, close + 1),
                None => break,
            }
        }
        j = skip_visibility(&blanked, j);
        if !blanked[j..].starts_with(b"mod ") {
            continue;
        }
        j = skip_space(&blanked, j + 4);
        while j < blanked.len() && (blanked[j].is_ascii_alphanumeric() || blanked[j] == b'_') {
            j += 1;
        }
        j = skip_space(&blanked, j);
        if blanked.get(j) != Some(&b'{') {
            // `mod tests;`: a file of tests, which the caller leaves out.
            continue;
        }
        let end = matching_brace(&blanked, j);
        cuts.push((start, end));
        from = end;
    }
    let mut kept = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in cuts {
        kept.push_str(&text[at..start]);
        at = end;
    }
    kept.push_str(&text[at..]);
    kept
}

/// The number of lines the size cap counts: those of [`library_text`],
/// blank lines at its end aside.
pub fn library_lines(text: &str) -> usize {
    library_text(text).trim_end().lines().count()
}

fn find(hay: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    hay.get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|n| from + n)
}

fn skip_space(s: &[u8], mut at: usize) -> usize {
    while at < s.len() && s[at].is_ascii_whitespace() {
        at += 1;
    }
    at
}

/// Past `pub`, `pub(crate)`, `pub(super)` and the space after it.
fn skip_visibility(s: &[u8], at: usize) -> usize {
    if !s[at..].starts_with(b"pub") {
        return at;
    }
    let mut j = skip_space(s, at + 3);
    if s.get(j) == Some(&b'(') {
        j = find(s, b")", j).map_or(j, |close| close + 1);
    }
    skip_space(s, j)
}

/// Just past the brace that closes the one at `open` (the end of the text
/// if it never closes).
fn matching_brace(s: &[u8], open: usize) -> usize {
    let mut depth = 0usize;
    for (i, &b) in s.iter().enumerate().skip(open) {
        match b {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i + 1;
                }
            }
            _ => {}
        }
    }
    s.len()
}
