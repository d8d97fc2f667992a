//! What the book tells a learner about each gap, held to the truth: a first
//! hint states the idea and leaves the formula to a later one, and the
//! "roughly N lines" a marker or a page promises is near the lines the gap
//! really holds. Part of the `content` group.

use super::book;
use puzzle_core::kernel::cut::Kernel;

/// Operators that make an inline code span a piece of code that computes
/// (an index, an assignment, arithmetic): `a[i]`, `x = 1`, `t + 1`, `l % 8`.
const CODE_OPERATORS: [&str; 10] = ["[", "]", "=", "+", "-", "*", "/", "%", "<<", ">>"];

/// Operators that, with a space and an operand on each side, make prose a
/// formula: `TM + TN`, `x − mean`, `h = 0`, `(rank - 1) mod ranks`.
const PROSE_OPERATORS: [&str; 10] = ["+", "-", "−", "*", "/", "%", "·", "=", "^", "mod"];

/// The inline code spans of a markdown text, and the prose between them. A
/// span opens with a run of backticks and closes at the next run as long.
fn code_and_prose(text: &str) -> (Vec<&str>, String) {
    let mut code = Vec::new();
    let mut prose = String::new();
    let mut rest = text;
    while let Some(open) = rest.find('`') {
        prose.push_str(&rest[..open]);
        let ticks = rest[open..].chars().take_while(|&c| c == '`').count();
        let after = &rest[open + ticks..];
        let fence = "`".repeat(ticks);
        let Some(close) = after.find(&fence) else {
            // An unclosed backtick is prose, as markdown reads it.
            prose.push_str(&rest[open..]);
            return (code, prose);
        };
        code.push(&after[..close]);
        // A space where the span stood keeps its neighbours apart.
        prose.push(' ');
        rest = &after[close + ticks..];
    }
    prose.push_str(rest);
    (code, prose)
}

/// What in `hint` computes rather than explains: each inline code span that
/// holds one of [`CODE_OPERATORS`], each `\(` or `$$` formula, and each
/// "operand operator operand" of the prose ([`PROSE_OPERATORS`], spaced).
/// Empty where the hint says its idea in words.
fn dictated(hint: &str) -> Vec<String> {
    let (code, prose) = code_and_prose(hint);
    let mut found: Vec<String> = code
        .iter()
        .filter(|span| CODE_OPERATORS.iter().any(|op| span.contains(op)))
        .map(|span| format!("`{span}`"))
        .collect();
    if hint.contains("\\(") || hint.contains("$$") {
        found.push("a formula in math notation".to_string());
    }
    let words: Vec<&str> = prose.split_whitespace().collect();
    for w in words.windows(3) {
        if PROSE_OPERATORS.contains(&w[1]) {
            found.push(w.join(" "));
        }
    }
    found
}

fn dictated_table() {
    let cases: [(&str, &[&str]); 11] = [
        // Ideas in words, names in code.
        (
            "Stage the tile in shared memory, then `__syncthreads()`.",
            &[],
        ),
        ("An 8 × 8 patch, `TILE` wide, read as `float4`s.", &[]),
        ("A thread's slot is its lane; see `a.rank`.", &[]),
        // Code that computes: an index, arithmetic, an assignment, a shift.
        ("Read `a[i]` once.", &["`a[i]`"]),
        ("Tile `t + 1` is on its way.", &["`t + 1`"]),
        ("`x = 1` first.", &["`x = 1`"]),
        ("Lane `l % 8`, bit `1 << k`.", &["`l % 8`", "`1 << k`"]),
        // Math notation, and formulas in the prose.
        (
            "The sum \\(\\sum_i x_i\\).",
            &["a formula in math notation"],
        ),
        ("It costs TM + TN reads.", &["TM + TN"]),
        ("the deviations x − mean, squared", &["x − mean,"]),
        // A double-backtick span is one span.
        ("``a`b`` then `c`", &[]),
    ];
    for (hint, expected) in cases {
        assert_eq!(dictated(hint), expected.to_vec(), "{hint:?}");
    }
}

/// Hints are handed out one at a time, from the idea to the code: the first
/// says what to do and why, in words, and leaves the indices and formulas
/// to the hints a learner asks for next. (A kernel given whole has nothing
/// to write.)
fn every_first_hint_states_the_idea_without_a_formula() {
    let mut problems = Vec::new();
    for puzzle in &book().puzzles {
        if puzzle.kernels.values().all(Kernel::is_given_whole) {
            continue;
        }
        let Some(first) = puzzle.spec.raw.hints.first() else {
            continue;
        };
        let found = dictated(first);
        if !found.is_empty() {
            problems.push(format!(
                "{}: {}\n    hint 1: {first}",
                puzzle.id(),
                found.join(", ")
            ));
        }
    }
    assert!(
        problems.is_empty(),
        "{} first hint(s) compute instead of stating the idea:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Numbers as a page writes them, in digits or in words (up to 99).
fn number(word: &str) -> Option<usize> {
    const UNITS: [&str; 20] = [
        "zero",
        "one",
        "two",
        "three",
        "four",
        "five",
        "six",
        "seven",
        "eight",
        "nine",
        "ten",
        "eleven",
        "twelve",
        "thirteen",
        "fourteen",
        "fifteen",
        "sixteen",
        "seventeen",
        "eighteen",
        "nineteen",
    ];
    const TENS: [&str; 8] = [
        "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
    ];
    let word = word.to_lowercase();
    if let Ok(n) = word.parse() {
        return Some(n);
    }
    if let Some(n) = UNITS.iter().position(|u| *u == word) {
        return Some(n);
    }
    let (tens, unit) = word.split_once('-').unwrap_or((&word, "zero"));
    let tens = TENS.iter().position(|t| *t == tens)?;
    let unit = UNITS[..10].iter().position(|u| *u == unit)?;
    Some(20 + 10 * tens + unit)
}

/// The sizes `text` states as "roughly N lines" or "about N lines".
fn stated_sizes(text: &str) -> Vec<usize> {
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(3)
        .filter(|w| {
            matches!(w[0].to_lowercase().as_str(), "roughly" | "about") && w[2].starts_with("line")
        })
        .filter_map(|w| number(w[1]))
        .collect()
}

/// The lines of code the learner writes: the solution's lines that the
/// skeleton cuts out (found by the engine's own cut), less blank lines and
/// lines that are only a comment.
fn gap_lines(kernel: &Kernel) -> usize {
    let solution = kernel.solution().text;
    let skeleton = kernel.skeleton().text;
    let solution: Vec<&str> = solution.lines().collect();
    let skeleton: Vec<&str> = skeleton.lines().collect();
    let Some(fill) = skeleton.iter().position(|l| l.contains("FILL ME IN")) else {
        return 0;
    };
    // The skeleton is the solution with the gap replaced by its one line.
    let after = skeleton.len() - fill - 1;
    solution[fill..solution.len() - after]
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with("//"))
        .count()
}

/// Within 20 % of the truth; within one line for a gap stated at five or fewer.
fn near(stated: usize, real: usize) -> bool {
    let off = stated.abs_diff(real);
    off * 5 <= real || (stated <= 5 && off <= 1)
}

fn sizes_table() {
    assert_eq!(number("26"), Some(26));
    assert_eq!(number("Six"), Some(6));
    assert_eq!(number("twenty-six"), Some(26));
    assert_eq!(number("thirty"), Some(30));
    assert_eq!(number("lines"), None);
    assert_eq!(
        stated_sizes("in roughly six lines. About 12 lines here, roughly 1 line there"),
        [6, 12, 1]
    );
    // 15 stated for 26 is far off; 21 is within a fifth; 2 for 3 is a line off.
    assert!(!near(15, 26) && near(21, 26) && near(31, 26) && !near(32, 26));
    assert!(near(2, 3) && near(1, 2) && !near(2, 4) && !near(5, 7));
    let text = "void k() {\n  int i = 0;\n  // BEGIN PUZZLE (roughly 2 lines)\n  // why\n\n  a = 1;\n  b = 2;\n  // END PUZZLE\n}\n";
    let source = puzzle_core::source::text::SourceText::new(text, std::path::Path::new("k.cu"), 1);
    let kernel = Kernel::new(puzzle_core::lang::Lang::Cuda, source).unwrap();
    assert_eq!(gap_lines(&kernel), 2);
}

/// Every "roughly N lines" a learner is promised is near the gap: each
/// kernel's marker against that kernel's gap, and each page's sentence
/// against the gaps of the kernels on that page (any of them).
fn every_gap_marker_is_within_a_fifth_of_the_gap() {
    let book = book();
    let mut problems = Vec::new();
    let mut pages: std::collections::BTreeMap<&std::path::Path, Vec<(String, usize)>> =
        Default::default();
    for puzzle in &book.puzzles {
        for (lang, kernel) in &puzzle.kernels {
            if kernel.is_given_with_bug() || kernel.is_given_whole() {
                continue;
            }
            let real = gap_lines(kernel);
            let label = format!("{} ({})", puzzle.id(), lang.label());
            pages
                .entry(&puzzle.chapter)
                .or_default()
                .push((label.clone(), real));
            match stated_sizes(&kernel.hint)[..] {
                [stated] if near(stated, real) => {}
                [stated] => problems.push(format!(
                    "{label}: the marker says {stated} lines, the gap holds {real}"
                )),
                _ => problems.push(format!(
                    "{label}: the marker `{}` states no \"roughly N lines\"; the gap holds {real}",
                    kernel.hint
                )),
            }
        }
    }
    for (page, gaps) in &pages {
        let path = if page.is_file() {
            page.to_path_buf()
        } else {
            book.src.join(page)
        };
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        for stated in stated_sizes(&text) {
            if !gaps.iter().any(|(_, real)| near(stated, *real)) {
                problems.push(format!(
                    "{}: the page says roughly {stated} lines; its gaps hold {gaps:?}",
                    page.display()
                ));
            }
        }
    }
    assert!(
        problems.is_empty(),
        "{} marker(s) off by more than a fifth:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// This module's trials, joined to the `content` group's.
pub fn trials() -> Vec<libtest_mimic::Trial> {
    crate::panicking_trials!("content":
        dictated_table,
        every_first_hint_states_the_idea_without_a_formula,
        sizes_table,
        every_gap_marker_is_within_a_fifth_of_the_gap,
    )
}
