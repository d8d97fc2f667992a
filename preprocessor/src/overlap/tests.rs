//! Table tests of ```overlap blocks with made-up hosts: a book of the four
//! roles and of puzzles that break the block's rules, in memory, and
//! recordings written here.

use super::block::OverlapBlock;
use super::*;
use crate::recorded_fixtures::{DAY, at, device, recording, timing};
use Kept::{Missing, Ms, Stale, Wrong};
use puzzle_core::source::include::MemoryFiles;
use runner::perf::record::{BenchEntry, hash, spec_hash};
use runner::perf::{BenchReport, Checked};
use std::path::{Path, PathBuf};

const TWO: &str = "2 × NVIDIA Imaginary 9000";
const FOUR: &str = "4 × NVIDIA Imaginary 9000";

/// The four roles' cases: two shapes on 2 GPUs, the first again on 4.
const CASES: &str = "  - { ROWS: 8192, DIM: 2048, HID: 64 }\n  - { ROWS: 8192, DIM: 4096, HID: 64 }\n  \
                     - { ROWS: 8192, DIM: 2048, HID: 64, RANKS: 4 }\n";

/// A puzzle on `RANKS` GPUs (`ranks` by default) with ROWS, DIM and HID
/// constants to label its cases by; `bench` is its `bench:` list, or none.
fn spec(id: &str, ranks: i64, bench: Option<&str>) -> String {
    let bench = bench.map_or(String::new(), |cases| format!("bench:\n{cases}"));
    format!(
        "```puzzle\nid: {id}\ntitle: {id}\nkernel: all_reduce\nreference: all_reduce\n\
         const: {{ RANKS: {ranks}, SIZE: 8, TPB: 8, ROWS: 8, DIM: 4, HID: 2 }}\ngpus: RANKS\n\
         grid: [1]\nblock: [TPB]\nwhy_no_kernel: {{ wgsl: \"several GPUs\" }}\nbuffers:\n  \
         a: {{ len: SIZE, init: random 1 }}\n  out: {{ len: SIZE, output: true }}\n\
         peers:\n  a_all: a\nscalars:\n  rank: {{ type: u32, value: RANK }}\n  \
         size: {{ type: u32, value: SIZE }}\nargs: [out, a_all, rank, size]\n\
         expect:\n  out: reference\n{bench}```\n\n```cuda,puzzle={id}\nextern \"C\" __global__ void all_reduce(float* out) {{\n    \
         // BEGIN PUZZLE\n    out[threadIdx.x] = 1.0f;\n    // END PUZZLE\n}}\n```\n"
    )
}

/// A puzzle in WGSL only: no CUDA kernel to time.
const WGSL_ONLY: &str = "```puzzle\nid: wgsl_only\ntitle: W\nkernel: k\ngrid: [1]\nblock: [4]\n\
    buffers:\n  out: { len: 4, output: true }\nargs: [out]\nexpect:\n  out: [1, 1, 1, 1]\n\
    why_no_kernel: { cuda: \"shown in WGSL only\" }\nconst: { N: 4 }\nbench:\n  - { N: 8 }\n```\n\n```wgsl,puzzle=wgsl_only\n\
    @group(0) @binding(0) var<storage, read_write> out: array<f32>;\n@compute @workgroup_size(4)\n\
    fn k(@builtin(local_invocation_id) l: vec3<u32>) {\n    // BEGIN PUZZLE\n    out[l.x] = 1.0;\n    \
    // END PUZZLE\n}\n```\n";

/// The four roles, and puzzles whose cases are not theirs.
fn book() -> Book {
    let mut chapter = String::from("# Overlap\n\n");
    for id in ["p40_compute", "p40_comm", "p40_serial", "p40_overlapped"] {
        chapter.push_str(&spec(id, 2, Some(CASES)));
    }
    let reordered = "  - { ROWS: 8192, DIM: 4096, HID: 64 }\n  - { ROWS: 8192, DIM: 2048, HID: 64 }\n  \
                     - { ROWS: 8192, DIM: 2048, HID: 64, RANKS: 4 }\n";
    chapter.push_str(&spec("reordered", 2, Some(reordered)));
    chapter.push_str(&spec(
        "fewer",
        2,
        Some(&CASES[..CASES.find("  - { ROWS: 8192, DIM: 4096").unwrap()]),
    ));
    chapter.push_str(&spec("on_four", 4, Some(CASES)));
    chapter.push_str(&spec("no_bench", 2, None));
    chapter.push_str(WGSL_ONLY);
    Book::from_chapters(
        Path::new("/b"),
        Path::new("/b/src"),
        [(PathBuf::from("/b/src/overlap.md"), chapter)],
        &MemoryFiles::default(),
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

const BLOCK: &str = "title: MLP\ncompute: p40_compute\ncommunication: p40_comm\n\
                     serial: p40_serial\noverlapped: p40_overlapped\n";

fn with_target(percent: &str) -> String {
    format!("{BLOCK}within_percent: {percent}\n")
}

/// The roles' ids in the block's order.
const IDS: [&str; 4] = ["p40_compute", "p40_comm", "p40_serial", "p40_overlapped"];

/// The cases of `CASES`, by place.
fn case(i: usize) -> Constants {
    let dim = if i == 1 { 4096 } else { 2048 };
    let mut c = at(&[("ROWS", 8192), ("DIM", dim), ("HID", 64)]);
    if i == 2 {
        c.insert("RANKS".into(), 4);
    }
    c
}

/// How one benchmark is recorded.
#[derive(Clone, Copy, Debug)]
enum Kept {
    /// Current, at this median time (ms).
    Ms(f64),
    /// Timed with a kernel since changed.
    Stale,
    /// Current, but its output was wrong.
    Wrong(f64),
    /// Not recorded at all.
    Missing,
}

/// A benchmark of `id` at `case` as `runner record` keeps it.
fn bench(book: &Book, id: &str, case: &Constants, kept: Kept, name: &str) -> Option<BenchEntry> {
    let puzzle = book.find(id).unwrap();
    let spec = puzzle.spec.sized(case).unwrap();
    let ms = match kept {
        Ms(ms) | Wrong(ms) => ms,
        Kept::Stale => 1.0,
        Kept::Missing => return None,
    };
    let solution = puzzle.kernel(Lang::Cuda).unwrap().solution().text;
    Some(BenchEntry {
        puzzle: id.into(),
        lang: Lang::Cuda,
        case: case.clone(),
        spec_hash: spec_hash(&puzzle.spec.text),
        source_hash: hash(match kept {
            Kept::Stale => "an older kernel",
            _ => &solution,
        }),
        outcome: Ok(BenchReport {
            puzzle: id.into(),
            device: device(name),
            constants: case.clone(),
            timing: timing(ms),
            buffer_sets: 1,
            footprint_bytes: spec.min_bytes(),
            placement: runner::perf::roofline::place(&spec, ms, None),
            checked: match kept {
                Wrong(_) => Checked::Failed(vec!["out@1[3] is 2, expected 4".into()]),
                _ => Checked::Passed,
            },
            inputs: None,
        }),
        date: Some(DAY.into()),
    })
}

/// A host whose four roles were timed at `case` as `kept` says, in the
/// block's order.
fn host(book: &Book, name: &str, timed: &[(Constants, [Kept; 4])]) -> Recording {
    let benches = timed
        .iter()
        .flat_map(|(case, kept)| {
            IDS.iter()
                .zip(kept)
                .filter_map(|(id, kept)| bench(book, id, case, *kept, name))
        })
        .collect();
    recording(name, benches)
}

fn ms(times: [f64; 4]) -> [Kept; 4] {
    times.map(Ms)
}

/// The rows of the page's tables: one `Vec` of cells per row.
fn table_rows(page: &str) -> Vec<Vec<String>> {
    page.lines()
        .filter(|l| l.starts_with("<tr><td"))
        .map(|l| {
            l.split("<td")
                .skip(1)
                .map(|c| {
                    let c = &c[c.find('>').unwrap() + 1..];
                    c[..c.find("</td>").unwrap()].to_string()
                })
                .collect()
        })
        .collect()
}

/// A host's rows are its number of GPUs' cases, in the specs' order.
#[test]
fn rows_follow_the_hosts_gpus_table() {
    let book = book();
    let all = [0, 1, 2].map(|i| (case(i), ms([1.0; 4])));
    // (host, the rows' labels, its heading)
    let cases: [(&str, &[&str]); 3] = [
        (
            TWO,
            &["8192 × 2048,<br>hidden 64", "8192 × 4096,<br>hidden 64"],
        ),
        (FOUR, &["8192 × 2048,<br>hidden 64"]),
        ("8 × NVIDIA Imaginary 9000", &[]),
    ];
    for (name, labels) in cases {
        let page = render_block(BLOCK, &book, &[host(&book, name, &all)]).unwrap();
        let rows = table_rows(&page);
        let got: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
        assert_eq!(got, labels, "{name}: {page}");
        assert!(page.contains(&format!("**MLP on {name}**")), "{page}");
        assert_eq!(
            page.contains(&format!("**MLP on {name}**, timed {DAY}")),
            !labels.is_empty(),
            "{page}"
        );
        assert_eq!(
            page.contains("None of these puzzles' <code>bench</code> cases runs on 8 GPUs"),
            labels.is_empty(),
            "{page}"
        );
        for row in &rows {
            assert_eq!(row.len(), 8, "{page}");
            assert_eq!(row[1], "1.00 ms<br>±2.0%", "{page}");
        }
    }
    // One section per host, in the order given.
    let hosts = [host(&book, FOUR, &all), host(&book, TWO, &all)];
    let page = render_block(BLOCK, &book, &hosts).unwrap();
    assert_eq!(table_rows(&page).len(), 3, "{page}");
    assert!(page.find(FOUR).unwrap() < page.find(TWO).unwrap(), "{page}");
}

#[test]
fn bound_and_ratios_table() {
    let book = book();
    // (compute, communication, serial, overlapped ms; bound | overlapped / bound | speed-up)
    let cases = [
        ([0.8, 1.0, 1.8, 1.05], "1.00 ms<br>comm. | 105 % | 1.71×"),
        ([2.0, 0.5, 2.5, 2.1], "2.00 ms<br>compute | 105 % | 1.19×"),
        // A tie is the computation's.
        ([1.0, 1.0, 2.0, 2.5], "1.00 ms<br>compute | 250 % | 0.800×"),
        (
            [0.04, 0.025, 0.06, 0.046],
            "40.0 µs<br>compute | 115 % | 1.30×",
        ),
        ([0.1, 0.4, 0.5, 0.396], "400 µs<br>comm. | 99 % | 1.26×"),
        ([0.1, 1.0, 1.1, 1.003], "1.00 ms<br>comm. | 100 % | 1.10×"),
    ];
    for (times, want) in cases {
        let page =
            render_block(BLOCK, &book, &[host(&book, TWO, &[(case(0), ms(times))])]).unwrap();
        assert_eq!(
            table_rows(&page)[0][5..].join(" | "),
            want,
            "{times:?}: {page}"
        );
    }
}

/// The verdict is the first case's of the host's GPUs: met within the
/// margin and faster than serial; missed over it, no faster, or where a
/// figure is missing or wrong.
#[test]
fn verdicts_table() {
    let book = book();
    let good = ms([0.8, 1.0, 1.8, 1.05]);
    // (case, target, 2-GPU headline, the verdict's words)
    let cases: [(&str, &str, [Kept; 4], &str); 8] = [
        (
            "met",
            "10",
            good,
            "<p class=\"puzzle-target met\">Target: overlapped within 10 % of max(compute, \
             communication) and faster than serial, at 8192 × 2048, hidden 64. Overlapped took \
             1.05 ms, 105.0 % of the bound (communication alone, 1.00 ms; at most 110 % asked), \
             and was 1.71× faster than serial (1.80 ms): <strong>met</strong>.</p>",
        ),
        (
            "over the bound",
            "2.5",
            good,
            "<p class=\"puzzle-target missed\">Target: overlapped within 2.5 % of max(compute, \
             communication) and faster than serial, at 8192 × 2048, hidden 64. Overlapped took \
             1.05 ms, 105.0 % of the bound (communication alone, 1.00 ms; at most 102.5 % \
             asked), and was 1.71× faster than serial (1.80 ms): <strong>missed</strong>.</p>",
        ),
        (
            "exactly at the margin",
            "5",
            good,
            "at most 105 % asked), and was 1.71× faster than serial (1.80 ms): <strong>met</strong>",
        ),
        (
            "slower than serial",
            "50",
            ms([1.0, 0.4, 1.2, 1.3]),
            "Overlapped took 1.30 ms, 130.0 % of the bound (compute alone, 1.00 ms; at most 150 % \
             asked), and was no faster than serial (1.20 ms): <strong>missed</strong>",
        ),
        (
            "as slow as serial",
            "50",
            ms([1.0, 0.4, 1.2, 1.2]),
            "no faster than serial (1.20 ms): <strong>missed</strong>",
        ),
        (
            "wrong output",
            "10",
            [Ms(0.8), Ms(1.0), Ms(1.8), Wrong(1.0)],
            "at 8192 × 2048, hidden 64. No figure for overlapped (wrong output): \
             <strong>missed</strong>.</p>",
        ),
        (
            "stale",
            "10",
            [Stale, Ms(1.0), Ms(1.8), Ms(1.0)],
            "No figure for compute (stale: the spec or kernel changed since 2026-11-27): \
             <strong>missed</strong>",
        ),
        (
            "missing",
            "10",
            [Ms(0.8), Missing, Ms(1.8), Missing],
            "No figure for communication (not benchmarked on this GPU), overlapped (not \
             benchmarked on this GPU): <strong>missed</strong>",
        ),
    ];
    for (name, within, headline, want) in cases {
        // The second case misses by far: only the headline is judged.
        let timed = [(case(0), headline), (case(1), ms([1.0, 1.0, 2.0, 9.0]))];
        let page = render_block(&with_target(within), &book, &[host(&book, TWO, &timed)]).unwrap();
        assert!(page.contains(want), "{name}: missing {want:?}:\n{page}");
        assert_eq!(page.matches("puzzle-target").count(), 1, "{name}: {page}");
    }
    // On 4 GPUs the headline is the first case on 4.
    let timed = [(case(2), ms([0.5, 1.0, 1.5, 1.02]))];
    let page = render_block(&with_target("10"), &book, &[host(&book, FOUR, &timed)]).unwrap();
    assert!(
        page.contains("Overlapped took 1.02 ms, 102.0 % of the bound")
            && page.contains("puzzle-target met"),
        "{page}"
    );
    // No target, no verdict.
    let page = render_block(BLOCK, &book, &[host(&book, TWO, &timed)]).unwrap();
    assert!(!page.contains("puzzle-target"), "{page}");
}

/// Stale and missing benchmarks say so in the bus block's words (those CI's
/// build fails on); a host with no benchmark of these puzzles has no section.
#[test]
fn stale_and_missing_cells_table() {
    let book = book();
    let s = "<span class=\"puzzle-stale\" style=\"white-space:normal\">stale: the spec or \
             kernel changed since 2026-11-27</span>";
    let m = "<span class=\"puzzle-unrecorded\" style=\"white-space:normal\">not \
             benchmarked on this GPU</span>";
    let (one, two) = ("1.00 ms<br>±2.0%", "2.00 ms<br>±2.0%");
    let headline = |kept| vec![host(&book, TWO, &[(case(0), kept)])];
    let (stale, missing) = (Stale, Missing);
    let other = bench(&book, "reordered", &case(0), Ms(1.0), TWO).unwrap();
    // (case, recordings, the first row's cells after its label, or no table)
    let cases = [
        (
            "stale compute",
            headline([stale, Ms(1.0), Ms(2.0), Ms(1.0)]),
            Some(format!("{s} | {one} | {two} | {one} | – | – | 2.00×")),
        ),
        (
            "only serial recorded",
            headline([missing, missing, Ms(2.0), missing]),
            Some(format!("{m} | {m} | {two} | {m} | – | – | –")),
        ),
        (
            "nothing current",
            headline([stale; 4]),
            Some(format!("{s} | {s} | {s} | {s} | – | – | –")),
        ),
        ("no recording", vec![], None),
        (
            "only other puzzles, or one GPU",
            vec![
                recording("NVIDIA Imaginary 9000", vec![]),
                recording(TWO, vec![other]),
            ],
            None,
        ),
    ];
    for (name, recordings, first_row) in cases {
        let page = render_block(BLOCK, &book, &recordings).unwrap();
        let rows = table_rows(&page);
        let Some(first_row) = first_row else {
            assert!(rows.is_empty(), "{name}: {page}");
            let none = "<p class=\"puzzle-recorded\">No recorded CUDA results of these puzzles \
                        yet: they take a host of several GPUs.";
            assert!(page.contains(none), "{name}: {page}");
            continue;
        };
        assert_eq!(rows[0][1..].join(" | "), first_row, "{name}: {page}");
        // The second 2-GPU case was never recorded: it says so too.
        assert_eq!(rows[1][1..5], [m; 4], "{name}: {page}");
        let current = !name.starts_with("nothing");
        let none = "No benchmark of these puzzles here is current (recorded 2026-11-27)";
        assert_eq!(page.contains(none), !current, "{name}: {page}");
    }
}

/// A wrong output is marked in its cell, listed under the table, and no
/// ratio is taken of it.
#[test]
fn wrong_output_is_marked() {
    let book = book();
    let timed = [(case(0), [Ms(0.8), Wrong(1.0), Ms(1.8), Ms(1.05)])];
    let page = render_block(BLOCK, &book, &[host(&book, TWO, &timed)]).unwrap();
    let row = &table_rows(&page)[0];
    assert_eq!(row[2], "1.00 ms<br>±2.0%<br>✘ wrong output", "{page}");
    assert_eq!([&row[5], &row[6], &row[7]], ["–", "–", "1.71×"], "{page}");
    assert!(
        page.contains("`p40_comm` at 8192 × 2048, hidden 64: WRONG: out@1[3] is 2, expected 4"),
        "{page}"
    );
}

#[test]
fn size_labels_table() {
    let defaults = at(&[
        ("RANKS", 2),
        ("ROWS", 8),
        ("DIM", 4),
        ("HID", 2),
        ("TPB", 8),
    ]);
    let no_shape = at(&[("RANKS", 2), ("SIZE", 8), ("TPB", 8)]);
    // (defaults, case, whole, label)
    let cases = [
        (
            &defaults,
            at(&[("ROWS", 8192), ("DIM", 2048), ("HID", 64)]),
            false,
            "8192 × 2048, hidden 64",
        ),
        // The defaults fill in what the case leaves.
        (
            &defaults,
            at(&[("ROWS", 8192)]),
            false,
            "8192 × 4, hidden 2",
        ),
        (
            &defaults,
            at(&[("ROWS", 8192), ("RANKS", 4)]),
            true,
            "8192 × 4, hidden 2",
        ),
        (
            &defaults,
            at(&[("ROWS", 16), ("TPB", 16)]),
            false,
            "16 × 4, hidden 2",
        ),
        (
            &defaults,
            at(&[("ROWS", 16), ("TPB", 16)]),
            true,
            "16 × 4, hidden 2, TPB = 16",
        ),
        (
            &no_shape,
            at(&[("SIZE", 16384), ("TPB", 16)]),
            false,
            "SIZE = 16384, TPB = 16",
        ),
        (
            &no_shape,
            at(&[("SIZE", 16384), ("RANKS", 4)]),
            false,
            "SIZE = 16384",
        ),
        (&no_shape, at(&[("RANKS", 4)]), false, "the spec's sizes"),
        // No HID: no hidden size.
        (&at(&[("ROWS", 8), ("DIM", 4)]), at(&[]), false, "8 × 4"),
        // ROWS without DIM is no shape: the case's constants.
        (
            &at(&[("ROWS", 8)]),
            at(&[("ROWS", 64), ("HID", 2)]),
            false,
            "HID = 2, ROWS = 64",
        ),
    ];
    for (defaults, case, whole, want) in cases {
        assert_eq!(size_label(defaults, &case, whole), want, "{case:?}");
    }
}

/// Two cases of one shape are told apart by their other constants.
#[test]
fn alike_rows_carry_their_other_constants() {
    let book = book();
    let puzzle = book.find("p40_compute").unwrap();
    let mut a = case(0);
    a.insert("TPB".into(), 16);
    let cases = [case(0), a, case(1)].map(|constants| Case { constants, gpus: 2 });
    let here: Vec<&Case> = cases.iter().collect();
    let host = recording(TWO, vec![]);
    let labels: Vec<String> = rows(&[puzzle; 4], &here, &host)
        .into_iter()
        .map(|r| r.label)
        .collect();
    assert_eq!(
        labels,
        [
            "8192 × 2048, hidden 64",
            "8192 × 2048, hidden 64, TPB = 16",
            "8192 × 4096, hidden 64"
        ]
    );
}

#[test]
fn dates_in_the_heading_table() {
    let book = book();
    // (the benchmarks' own days, the heading's)
    let cases: [(&[Option<&str>], &str); 3] = [
        (&[Some(DAY); 4], "timed 2026-11-27. Each"),
        // No day of its own: the file's.
        (
            &[None, Some("2026-11-20"), None, None],
            "timed 2026-11-20, 2026-11-27. Each",
        ),
        (&[Some("2026-12-01"); 4], "timed 2026-12-01. Each"),
    ];
    for (days, want) in cases {
        let mut host = host(&book, TWO, &[(case(0), ms([1.0; 4]))]);
        for (entry, day) in host.benches.iter_mut().zip(days) {
            entry.date = day.map(str::to_string);
        }
        let page = render_block(BLOCK, &book, &[host]).unwrap();
        assert!(page.contains(want), "{want}: {page}");
        assert!(page.contains("median of 20 device-timed runs"), "{page}");
    }
}

#[test]
fn block_errors_table() {
    let roles = "compute: a\ncommunication: b\nserial: c\noverlapped: d\n";
    let titled = |rest: &str| format!("title: MLP\n{rest}");
    let named = "```overlap block \"MLP\": ";
    // (YAML, words the error must hold)
    let cases: [(String, &[&str]); 7] = [
        (
            titled(&format!("{roles}chunks: 4\n")),
            &[named, "unknown field `chunks`"],
        ),
        (
            roles.to_string(),
            &["```overlap block: ", "missing field `title`"],
        ),
        (
            titled("compute: a\n"),
            &[named, "missing field `communication`"],
        ),
        ("title: [\n".to_string(), &["```overlap block: "]),
        (
            titled("compute: a\ncommunication: b\nserial: a\noverlapped: d\n"),
            &[
                named,
                "`a` is both `compute` and `serial`; each role is its own puzzle",
            ],
        ),
        (
            titled(&format!("{roles}within_percent: -1\n")),
            &[
                named,
                "`within_percent: -1`; give how far over max(compute, communication)",
            ],
        ),
        (
            titled(&format!("{roles}within_percent: .nan\n")),
            &[named, "`within_percent: NaN`"],
        ),
    ];
    for (yaml, wanted) in &cases {
        match OverlapBlock::parse(yaml) {
            Ok(block) => panic!("{yaml}: parsed as {block:?}"),
            Err(e) => {
                for want in *wanted {
                    assert!(e.to_string().contains(want), "{yaml}: {e}");
                }
            }
        }
    }
    for yaml in [
        titled(roles),
        titled(&format!("{roles}within_percent: 0\n")),
    ] {
        assert!(OverlapBlock::parse(&yaml).is_ok(), "{yaml}");
    }
}

/// The puzzles a block names: in the book, with CUDA kernels, and all four
/// with one list of `bench` cases on the same numbers of GPUs.
#[test]
fn puzzle_errors_table() {
    let book = book();
    let with = |role: &str, id: &str| {
        BLOCK
            .lines()
            .map(|l| match l.split_once(": ") {
                Some((key, _)) if key == role => format!("{key}: {id}\n"),
                _ => format!("{l}\n"),
            })
            .collect::<String>()
    };
    // (role, puzzle put in it, words the error must hold; empty: fine)
    let cases = [
        ("serial", "p40_serial", ""),
        (
            "serial",
            "p40",
            "```overlap block \"MLP\": no puzzle `p40`; did you mean",
        ),
        (
            "compute",
            "wgsl_only",
            "```overlap block \"MLP\": `wgsl_only` has no CUDA kernel",
        ),
        (
            "communication",
            "no_bench",
            "```overlap block \"MLP\": `no_bench` has no `bench` case in its spec",
        ),
        (
            "overlapped",
            "reordered",
            "```overlap block \"MLP\": `reordered` (overlapped) does not have the `bench` cases of \
             `p40_compute` (compute): its case 1 is { DIM: 4096, HID: 64, ROWS: 8192 }, compute's \
             is { DIM: 2048, HID: 64, ROWS: 8192 }; give the four puzzles the same cases",
        ),
        (
            "serial",
            "fewer",
            "`fewer` (serial) does not have the `bench` cases of `p40_compute` \
             (compute): it has 1 case, compute 3",
        ),
        (
            "compute",
            "fewer",
            "`p40_comm` (communication) does not have the `bench` cases of `fewer` (compute): it \
             has 3 cases, compute 1",
        ),
        (
            "communication",
            "on_four",
            "```overlap block \"MLP\": `on_four` (communication) runs `bench` case { DIM: 2048, \
             HID: 64, ROWS: 8192 } on 4 GPUs, `p40_compute` (compute) on 2",
        ),
    ];
    for (role, id, want) in cases {
        let yaml = with(role, id);
        assert!(yaml.contains(&format!("{role}: {id}\n")), "{yaml}");
        match render_block(&yaml, &book, &[]) {
            Ok(_) => assert!(want.is_empty(), "{yaml}"),
            Err(e) => assert!(
                !want.is_empty() && e.to_string().contains(want),
                "{yaml}: {e}"
            ),
        }
    }
}
