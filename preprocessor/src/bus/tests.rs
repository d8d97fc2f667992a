//! Table tests of ```bus blocks with made-up hosts: a book of two
//! collectives in memory, recordings and NCCL baselines written here.

use super::block::BusBlock;
use super::chart::size_label;
use super::*;
use crate::recorded_fixtures::{DAY, at, device, recording, timing};
use puzzle_core::source::include::MemoryFiles;
use runner::perf::record::{BenchEntry, hash, spec_hash};
use runner::perf::{BenchReport, Checked};
use std::path::{Path, PathBuf};

const TWO: &str = "2 × NVIDIA Imaginary 9000";
const FOUR: &str = "4 × NVIDIA Imaginary 9000";

/// A collective on `RANKS` GPUs: `out` per rank (the message), a scratch
/// buffer twice its size (never the message), and `bench` sizes.
fn spec(id: &str, title: &str, bench: &str) -> String {
    format!(
        "```puzzle\nid: {id}\ntitle: {title}\nkernel: all_reduce\nreference: all_reduce\n\
         const: {{ RANKS: 2, SIZE: 8, TPB: 8 }}\ngpus: RANKS\ngrid: [1]\nblock: [TPB]\n\
         why_no_kernel: {{ wgsl: \"one GPU\" }}\nbuffers:\n  a: {{ len: SIZE, init: random 1 }}\n  \
         out: {{ len: SIZE, output: true }}\n  spare: {{ len: \"SIZE * 2\", scratch: true }}\n\
         peers:\n  a_all: a\nscalars:\n  rank: {{ type: u32, value: RANK }}\n  \
         size: {{ type: u32, value: SIZE }}\nargs: [out, a_all, spare, rank, size]\n\
         expect:\n  out: reference\nbus_bytes: \"SIZE * 4 * 2 * (RANKS - 1) / RANKS\"\n\
         bench:\n{bench}```\n\n```cuda,puzzle={id}\nextern \"C\" __global__ void all_reduce(float* out) {{\n    \
         // BEGIN PUZZLE\n    out[threadIdx.x] = 1.0f;\n    // END PUZZLE\n}}\n```\n"
    )
}

/// p38_one at 64 KiB and 1 MiB on 2 GPUs and 1 MiB on 4; p39_ring at 1 MiB
/// and 256 MiB on 2 GPUs, the latter twice (two block counts).
fn book() -> Book {
    let chapter = format!(
        "# Multi\n\n{}\n{}\n{}",
        spec(
            "p38_one",
            "One Shot",
            "  - { SIZE: 16384 }\n  - { SIZE: 262144 }\n  - { SIZE: 262144, RANKS: 4 }\n"
        ),
        spec(
            "p39_ring",
            "Ring",
            "  - { SIZE: 262144 }\n  - { SIZE: 67108864 }\n  - { SIZE: 67108864, TPB: 16 }\n"
        ),
        spec("solo", "No number", "  - { SIZE: 16384 }\n")
    );
    Book::from_chapters(
        Path::new("/b"),
        Path::new("/b/src"),
        [(PathBuf::from("/b/src/multi.md"), chapter)],
        &MemoryFiles::default(),
    )
    .unwrap_or_else(|e| panic!("{e:?}"))
}

/// How one benchmark is recorded.
#[derive(Clone, Copy)]
enum Kept {
    /// Current, at this median time (ms).
    Ms(f64),
    /// Timed with a kernel since changed.
    Stale,
    /// Current, but its output was wrong.
    Wrong(f64),
}

/// A benchmark of `id` at `case` as `runner record` keeps it.
fn bench(book: &Book, id: &str, case: &[(&str, i64)], kept: Kept, name: &str) -> BenchEntry {
    let puzzle = book.find(id).unwrap();
    let case = at(case);
    let spec = puzzle.spec.sized(&case).unwrap();
    let ms = match kept {
        Kept::Ms(ms) | Kept::Wrong(ms) => ms,
        Kept::Stale => 1.0,
    };
    let solution = puzzle.kernel(Lang::Cuda).unwrap().solution().text;
    BenchEntry {
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
            constants: case,
            timing: timing(ms),
            buffer_sets: 1,
            footprint_bytes: spec.min_bytes(),
            placement: runner::perf::roofline::place(&spec, ms, None),
            checked: match kept {
                Kept::Wrong(_) => Checked::Failed(vec!["out@1[3] is 2, expected 4".into()]),
                _ => Checked::Passed,
            },
            inputs: None,
        }),
        date: Some(DAY.into()),
    }
}

/// NCCL on `name`: each (case name, SIZE, RANKS, median ms, bus bytes).
fn nccl(name: &str, date: &str, cases: &[(&str, i64, i64, f64, Option<u64>)]) -> Baseline {
    Baseline {
        library: "NCCL 2.28.9 (torch.distributed, NVLS off)".into(),
        software: "PyTorch 2.11.0+cu130, CUDA 13.0".into(),
        device: name.into(),
        date: date.into(),
        cases: cases
            .iter()
            .map(|&(case, size, ranks, ms, bytes)| BaselineCase {
                name: case.into(),
                constants: at(&[("SIZE", size), ("RANKS", ranks)]),
                flops: 0,
                bytes,
                timing: timing(ms),
                max_relative_error: 0.0,
                inputs: None,
                inputs_of: None,
            })
            .collect(),
    }
}

/// An all-reduce's bus bytes at SIZE on 2 GPUs: the message, 4 SIZE bytes.
fn bus2(size: i64) -> Option<u64> {
    Some(size as u64 * 4)
}

const BLOCK: &str = "title: All-reduce\npuzzles: [p38_one, p39_ring]\nbaseline: all_reduce\n";

/// The rows of the first table on the page: one `Vec` of cells per row.
fn table_rows(page: &str) -> Vec<Vec<String>> {
    page.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| message") && !l.starts_with("| ---"))
        .map(|l| {
            l.trim_matches('|')
                .split(" | ")
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn message_sizes_group_the_rows_table() {
    let book = book();
    // (case, spec's bench case, message bytes: one rank's `out`, scratch aside)
    let cases = [
        ("p38_one", at(&[("SIZE", 16384)]), 64 << 10),
        ("p38_one", at(&[("SIZE", 262144), ("RANKS", 4)]), 1 << 20),
        ("p39_ring", at(&[("SIZE", 67108864)]), 256 << 20),
    ];
    for (id, case, want) in cases {
        let spec = book.find(id).unwrap().spec.sized(&case).unwrap();
        assert_eq!(message_bytes(&spec), want, "{id} {case:?}");
    }
    for (bytes, text) in [
        (64 << 10, "64 KiB"),
        (1 << 20, "1 MiB"),
        (1 << 30, "1 GiB"),
        (3 << 19, "1.5 MiB"),
        (768, "768 B"),
    ] {
        assert_eq!(size_label(bytes), text);
    }

    // On 2 GPUs: 64 KiB (p38 only), 1 MiB (both), 256 MiB (p39 only); the
    // 4-GPU case is not a row here, and is one on the 4-GPU host.
    let b = |id, case: &[(&str, i64)], ms| bench(&book, id, case, Kept::Ms(ms), TWO);
    let two = recording(
        TWO,
        vec![
            b("p38_one", &[("SIZE", 16384)], 0.01),
            b("p38_one", &[("SIZE", 262144)], 0.04),
            b("p39_ring", &[("SIZE", 262144)], 0.05),
            b("p39_ring", &[("SIZE", 67108864)], 2.0),
            // The faster of two cases at one size is shown.
            b("p39_ring", &[("SIZE", 67108864), ("TPB", 16)], 1.6),
        ],
    );
    let four = recording(
        FOUR,
        vec![bench(
            &book,
            "p38_one",
            &[("SIZE", 262144), ("RANKS", 4)],
            Kept::Ms(0.1),
            FOUR,
        )],
    );
    let page = render_block(BLOCK, &book, &[two], &[]).unwrap();
    let rows = table_rows(&page);
    let sizes: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(sizes, ["64 KiB", "1 MiB", "256 MiB"], "{page}");
    assert_eq!(rows[0][2], "–", "p39 has no 64 KiB case");
    assert_eq!(rows[2][1], "–", "p38 has no 256 MiB case");
    // At 256 MiB an all-reduce on 2 GPUs moves 256 MiB of bus bytes: 268 MB in 1.6 ms.
    assert_eq!(rows[2][2], "1.60 ms ±2.0%<br>168 GB/s", "{page}");
    assert_eq!(rows[0][1], "10.0 µs ±2.0%<br>6.55 GB/s", "{page}");
    let page = render_block(BLOCK, &book, &[four], &[]).unwrap();
    let rows = table_rows(&page);
    assert_eq!(rows.len(), 1, "{page}");
    assert_eq!(rows[0][0], "1 MiB");
    assert!(page.contains("**All-reduce on 4 × NVIDIA Imaginary 9000**"));
}

/// NCCL's time is the one of the same device name, case name and constants.
#[test]
fn nccl_is_matched_by_device_name_and_constants_table() {
    let book = book();
    let two = recording(
        TWO,
        vec![
            bench(&book, "p38_one", &[("SIZE", 16384)], Kept::Ms(0.02), TWO),
            bench(&book, "p38_one", &[("SIZE", 262144)], Kept::Ms(0.08), TWO),
        ],
    );
    let baselines = [
        // Another host's NCCL at the same sizes: never used on this one.
        nccl(FOUR, DAY, &[("all_reduce", 16384, 2, 0.5, bus2(16384))]),
        nccl(
            TWO,
            DAY,
            &[
                // Another collective at the same constants.
                ("peer_copy", 16384, 2, 0.3, bus2(16384)),
                // The same SIZE at another RANKS.
                ("all_reduce", 16384, 4, 0.4, bus2(16384)),
                ("all_reduce", 16384, 2, 0.01, bus2(16384)),
                // No bus bytes: the kernel's count at the same constants.
                ("all_reduce", 262144, 2, 0.1, None),
            ],
        ),
    ];
    let page = render_block(BLOCK, &book, &[two], &baselines).unwrap();
    let rows = table_rows(&page);
    // (row, NCCL's cell, the best share)
    let cases = [
        (0, "10.0 µs ±2.0%<br>6.55 GB/s", "50 % P38"),
        (1, "100 µs ±2.0%<br>10.5 GB/s", "125 % P38"),
    ];
    for (row, cell, best) in cases {
        assert_eq!(rows[row][3], cell, "{page}");
        assert_eq!(rows[row][4], best, "{page}");
    }
    assert!(
        page.contains("NCCL 2.28.9 (torch.distributed, NVLS off), PyTorch 2.11.0+cu130"),
        "{page}"
    );
    assert!(!page.contains("timed on one day"), "{page}");
    assert!(page.contains("P38 is <code>p38_one</code>"), "{page}");
}

#[test]
fn missing_nccl_says_not_timed_on_this_host() {
    let book = book();
    let two = recording(
        TWO,
        vec![bench(
            &book,
            "p38_one",
            &[("SIZE", 16384)],
            Kept::Ms(0.02),
            TWO,
        )],
    );
    // (baselines, what the NCCL cell and the sources say)
    let only_other = [nccl(FOUR, DAY, &[("all_reduce", 16384, 2, 0.01, None)])];
    let other_size = [nccl(TWO, DAY, &[("all_reduce", 4096, 2, 0.01, None)])];
    let other_name = [nccl(TWO, DAY, &[("peer_copy", 16384, 2, 0.01, None)])];
    let cases: [(&[Baseline], &str); 3] = [
        (&only_other, "NCCL not timed on this host"),
        (&other_size, "NCCL 2.28.9 (torch.distributed"),
        (&other_name, "NCCL not timed on this host"),
    ];
    for (baselines, sources) in cases {
        let page = render_block(BLOCK, &book, std::slice::from_ref(&two), baselines).unwrap();
        let rows = table_rows(&page);
        assert_eq!(rows[0][3], "not timed on this host", "{page}");
        assert_eq!(rows[0][4], "–", "{page}");
        assert!(page.contains(sources), "{sources}: {page}");
    }
}

/// Stale and missing benchmarks say so in the roofline's words (those CI's
/// build fails on); a host with no benchmark of these puzzles has no section.
#[test]
fn stale_and_missing_benchmarks_are_reported_table() {
    let book = book();
    let stale = recording(
        TWO,
        vec![bench(
            &book,
            "p38_one",
            &[("SIZE", 16384)],
            Kept::Stale,
            TWO,
        )],
    );
    let mut awaiting = stale.clone();
    awaiting.awaiting = vec![runner::perf::record::Awaiting {
        puzzle: "p38_one".into(),
        changed: "2026-12-03".into(),
    }];
    let one_gpu = recording("NVIDIA Imaginary 9000", vec![]);
    let other_puzzle = recording(
        TWO,
        vec![bench(
            &book,
            "solo",
            &[("SIZE", 16384)],
            Kept::Ms(0.01),
            TWO,
        )],
    );
    // (case, recordings, words the page must hold)
    let cases: [(&str, Vec<Recording>, &[&str]); 4] = [
        (
            "awaiting a GPU that could not run the new kernel: not the stale class",
            vec![awaiting],
            &[
                "<span class=\"puzzle-awaiting\" style=\"white-space:normal\">not run on this \
                 GPU since the kernel changed on 2026-12-03</span>",
            ],
        ),
        (
            "stale",
            vec![stale],
            &[
                "<span class=\"puzzle-stale\" style=\"white-space:normal\">stale: the spec or \
                 kernel changed since 2026-11-27</span>",
                "not benchmarked on this GPU",
            ],
        ),
        (
            "no recording",
            vec![],
            &["No recorded CUDA results", "a host of several GPUs"],
        ),
        (
            "only other puzzles",
            vec![one_gpu, other_puzzle],
            &["No recorded CUDA results"],
        ),
    ];
    for (name, recordings, wanted) in cases {
        let page = render_block(BLOCK, &book, &recordings, &[]).unwrap();
        for text in wanted {
            assert!(page.contains(text), "{name}: missing {text:?}: {page}");
        }
    }
}

#[test]
fn short_names_table() {
    for (id, short) in [
        ("p38_all_reduce_one_shot", "P38"),
        ("p7_x", "P7"),
        ("p38", "p38"),
        ("solo", "solo"),
        ("px_1", "px_1"),
        ("p12x_y", "p12x_y"),
    ] {
        assert_eq!(short_name(id), short, "{id}");
    }
}

/// A wrong output is marked, listed under the table, and misses its target.
#[test]
fn targets_met_and_missed_table() {
    let book = book();
    let block = |targets: &str| format!("{BLOCK}targets:\n{targets}");
    let baselines = [nccl(
        TWO,
        DAY,
        &[
            ("all_reduce", 16384, 2, 0.01, bus2(16384)),
            ("all_reduce", 262144, 2, 0.04, bus2(262144)),
            ("all_reduce", 67108864, 2, 1.0, bus2(67108864)),
        ],
    )];
    let host = |p38_small: Kept| {
        recording(
            TWO,
            vec![
                bench(&book, "p38_one", &[("SIZE", 16384)], p38_small, TWO),
                bench(&book, "p38_one", &[("SIZE", 262144)], Kept::Ms(0.08), TWO),
                bench(&book, "p39_ring", &[("SIZE", 262144)], Kept::Ms(0.05), TWO),
                bench(&book, "p39_ring", &[("SIZE", 67108864)], Kept::Ms(1.1), TWO),
                bench(
                    &book,
                    "p39_ring",
                    &[("SIZE", 67108864), ("TPB", 16)],
                    Kept::Ms(1.25),
                    TWO,
                ),
            ],
        )
    };
    // (case, targets, p38's 64 KiB benchmark, the verdict's words)
    let cases: [(&str, &str, Kept, &str); 7] = [
        (
            "ring at large sizes, met",
            "  - { puzzle: p39_ring, percent: 90, from_bytes: 268435456 }\n",
            Kept::Ms(0.01),
            "<p class=\"puzzle-target met\">Target: <code>p39_ring</code> at ≥ 90 % of NCCL's bus \
             bandwidth at ≥ 256 MiB. Achieved 90.9 % at 256 MiB: <strong>met</strong>.</p>",
        ),
        (
            "ring everywhere, missed at 1 MiB",
            "  - { puzzle: p39_ring, percent: 90 }\n",
            Kept::Ms(0.01),
            "at every size. Achieved 80.0 % at 1 MiB, 90.9 % at 256 MiB: <strong>missed</strong>",
        ),
        (
            "one shot at small sizes, met",
            "  - { puzzle: p38_one, percent: 100, to_bytes: 65536 }\n",
            Kept::Ms(0.01),
            "at ≤ 64 KiB. Achieved 100.0 % at 64 KiB: <strong>met</strong>",
        ),
        (
            "one shot up to 1 MiB, missed",
            "  - { puzzle: p38_one, percent: 100, from_bytes: 65536, to_bytes: 1048576 }\n",
            Kept::Ms(0.01),
            "from 64 KiB to 1 MiB. Achieved 100.0 % at 64 KiB, 50.0 % at 1 MiB: \
             <strong>missed</strong>",
        ),
        (
            "a wrong output misses",
            "  - { puzzle: p38_one, percent: 50, to_bytes: 65536 }\n",
            Kept::Wrong(0.005),
            "Achieved 200.0 % at 64 KiB (wrong output): <strong>missed</strong>",
        ),
        (
            "a stale benchmark misses",
            "  - { puzzle: p38_one, percent: 50, to_bytes: 65536 }\n",
            Kept::Stale,
            "at ≤ 64 KiB. No figure at 64 KiB (stale: the spec or kernel changed since \
             2026-11-27): <strong>missed</strong>",
        ),
        (
            "no size in range",
            "  - { puzzle: p38_one, percent: 50, from_bytes: 1073741824 }\n",
            Kept::Ms(0.01),
            "at ≥ 1 GiB: no benchmark of it in this range on this host.</p>",
        ),
    ];
    for (name, targets, small, want) in cases {
        let page = render_block(&block(targets), &book, &[host(small)], &baselines).unwrap();
        assert!(page.contains(want), "{name}: missing {want:?}:\n{page}");
        if matches!(small, Kept::Wrong(_)) {
            assert!(page.contains("✘ wrong output"), "{page}");
            assert!(
                page.contains("`p38_one` at 64 KiB: WRONG: out@1[3] is 2, expected 4"),
                "{page}"
            );
            // The best share skips the wrong kernel.
            assert_eq!(table_rows(&page)[0][4], "–", "{page}");
        }
    }
    // Without NCCL on the host, every target is missed and says why.
    let page = render_block(
        &block("  - { puzzle: p39_ring, percent: 90 }\n"),
        &book,
        &[host(Kept::Ms(0.01))],
        &[],
    )
    .unwrap();
    assert!(
        page.contains("at every size: NCCL was not timed on this host.</p>"),
        "{page}"
    );
}

#[test]
fn dates_say_when_not_one_day() {
    let book = book();
    let mut entry = bench(&book, "p38_one", &[("SIZE", 16384)], Kept::Ms(0.02), TWO);
    let cases = [
        (Some(DAY), DAY, false),
        (Some("2026-11-20"), DAY, true),
        // No day of its own: the file's.
        (None, DAY, false),
        (None, "2026-12-01", true),
    ];
    for (bench_day, nccl_day, apart) in cases {
        entry.date = bench_day.map(str::to_string);
        let host = recording(TWO, vec![entry.clone()]);
        let baselines = [nccl(TWO, nccl_day, &[("all_reduce", 16384, 2, 0.01, None)])];
        let page = render_block(BLOCK, &book, &[host], &baselines).unwrap();
        let day = bench_day.unwrap_or(DAY);
        assert!(page.contains(&format!("kernels timed {day};")), "{page}");
        assert!(page.contains(&format!("timed {nccl_day}.")), "{page}");
        assert_eq!(
            page.contains("Not all of them were timed on one day"),
            apart,
            "{bench_day:?} {nccl_day}"
        );
    }
}

#[test]
fn block_errors_table() {
    // (YAML, words the error must hold)
    let cases = [
        (
            "title: Ring\npuzzles: [a]\nbaseline: all_reduce\nsizes: bench\n",
            "```bus block \"Ring\": ",
        ),
        (
            "title: Ring\npuzzles: [a]\nbaseline: all_reduce\nsizes: bench\n",
            "sizes",
        ),
        (
            "title: Ring\npuzzles: [a]\nbaseline: x\ntargets: [{ puzzle: a, percent: 9, from: 1 }]\n",
            "unknown field `from`",
        ),
        ("puzzles: [a]\nbaseline: x\n", "missing field `title`"),
        ("title: Ring\nbaseline: x\n", "missing field `puzzles`"),
        ("title: Ring\nbaseline: x\n", "```bus block \"Ring\": "),
        (
            "title: Ring\npuzzles: [a]\nbaseline: x\ntargets: [{ puzzle: b, percent: 9 }]\n",
            "```bus block \"Ring\": a target names `b`, which is not in `puzzles`",
        ),
        (
            "title: Ring\npuzzles: [a]\nbaseline: x\n\
             targets: [{ puzzle: a, percent: 9, from_bytes: 2, to_bytes: 1 }]\n",
            "`from_bytes: 2` above `to_bytes: 1`",
        ),
        (
            "title: Ring\npuzzles: [a]\nbaseline: x\ntargets: [{ puzzle: a, percent: 0 }]\n",
            "`percent: 0`",
        ),
        (
            "title: Ring\npuzzles: []\nbaseline: x\n",
            "`puzzles` is empty",
        ),
        (
            "title: Ring\npuzzles: [a, a]\nbaseline: x\n",
            "lists `a` twice",
        ),
        ("title: [\n", "```bus block: "),
    ];
    for (yaml, want) in cases {
        match BusBlock::parse(yaml) {
            Ok(block) => panic!("{yaml}: parsed as {block:?}"),
            Err(e) => assert!(e.to_string().contains(want), "{yaml}: {e}"),
        }
    }
    let book = book();
    // (YAML naming the book's puzzles, words the error must hold)
    let cases = [
        (
            "title: T\npuzzles: [p38]\nbaseline: x\n",
            "```bus block \"T\": no puzzle `p38`; did you mean p38_one?",
        ),
        (
            "title: T\npuzzles: [p38_one]\nbaseline: x\n",
            "", // fine
        ),
    ];
    for (yaml, want) in cases {
        match render_block(yaml, &book, &[], &[]) {
            Ok(_) => assert!(want.is_empty(), "{yaml}"),
            Err(e) => assert!(
                !want.is_empty() && e.to_string().contains(want),
                "{yaml}: {e}"
            ),
        }
    }
}

/// The whole block's chart: one line per kernel with a current figure, and
/// NCCL's; none where nothing is current.
#[test]
fn block_chart_has_a_line_per_series() {
    let book = book();
    let b = |id, case: &[(&str, i64)], kept| bench(&book, id, case, kept, TWO);
    let baselines = [nccl(
        TWO,
        DAY,
        &[
            ("all_reduce", 16384, 2, 0.01, bus2(16384)),
            ("all_reduce", 262144, 2, 0.04, bus2(262144)),
        ],
    )];
    // (case, benchmarks, polylines)
    let cases = [
        (
            "both kernels and NCCL",
            vec![
                b("p38_one", &[("SIZE", 16384)], Kept::Ms(0.02)),
                b("p39_ring", &[("SIZE", 262144)], Kept::Ms(0.05)),
            ],
            3,
        ),
        (
            "one kernel stale",
            vec![
                b("p38_one", &[("SIZE", 16384)], Kept::Ms(0.02)),
                b("p39_ring", &[("SIZE", 262144)], Kept::Stale),
            ],
            2,
        ),
        (
            "nothing current",
            vec![b("p38_one", &[("SIZE", 16384)], Kept::Stale)],
            0,
        ),
    ];
    for (name, benches, polylines) in cases {
        let page = render_block(BLOCK, &book, &[recording(TWO, benches)], &baselines).unwrap();
        // Drawn twice: for a laptop's column and for a phone's.
        assert_eq!(
            page.matches("<polyline").count(),
            2 * polylines,
            "{name}: {page}"
        );
        assert_eq!(page.contains("No chart"), polylines == 0, "{name}");
        if polylines > 0 {
            assert!(
                page.contains("P38 One Shot"),
                "{name}: the legend names the kernel"
            );
        }
    }
}

/// nvidia-smi underlines its header with escape sequences; the page shows
/// the words alone.
#[test]
fn topology_loses_its_escape_sequences_table() {
    let cases = [
        (
            "\u{1b}[4mGPU0\tGPU1\u{1b}[0m\nGPU0\t X \tNV18",
            "GPU0\tGPU1\nGPU0\t X \tNV18",
        ),
        ("plain", "plain"),
        ("", ""),
    ];
    for (text, want) in cases {
        assert_eq!(super::topology::without_escapes(text), want, "{text:?}");
    }
}
