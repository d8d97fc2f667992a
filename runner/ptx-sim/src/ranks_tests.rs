//! Runs of several ranks end to end, on PTX that NVRTC 12.9 made from
//! `testdata/ranks.cu` (flags through libcu++'s `cuda::atomic_ref`, peers'
//! buffers through tables of pointers passed by value): a one-shot
//! all-reduce gives the right sums at 2, 4 and 8 ranks; its mistakes are
//! found (a race across ranks, a device-scoped flag, a volatile poll, a
//! signal never sent); and controls pass (late signals and bounded polls
//! are no deadlock, each rank reads its own parameters).

use crate::hazard::{Hazard, Kind, SameLines};
use crate::launch::{Buffer, Config, Launch, Param, Run};
use crate::parse::module::Module;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// Elements per rank, and threads per block: two blocks, the second part empty.
const SIZE: usize = 40;
const TPB: u32 = 32;
const BLOCKS: u32 = 2;

fn module() -> &'static Module {
    static MODULE: OnceLock<Module> = OnceLock::new();
    MODULE.get_or_init(|| Module::parse(include_str!("testdata/ranks.ptx")).expect("parses"))
}

/// A buffer of `n` words with guard bands of 4 words on each side: zeros,
/// or poison (an output).
fn buffer(name: String, n: usize, poisoned: bool) -> Buffer {
    let band = vec![0xAAu8; 16];
    let fill = if poisoned { 0xFF } else { 0 };
    Buffer {
        name,
        bytes: [band.clone(), vec![fill; n * 4], band].concat(),
        lead: 16,
        len: n * 4,
        element_bytes: 4,
        poisoned,
    }
}

fn word(v: u32) -> Param {
    Param::Value(v.to_le_bytes().to_vec())
}

fn launch(entry: &str, rank: u32, args: Vec<Param>) -> Launch {
    Launch {
        entry: entry.into(),
        grid: [BLOCKS, 1, 1],
        block: [TPB, 1, 1],
        args,
        rank,
        ..Launch::default()
    }
}

/// Buffers of rank r: out@r, a@r, flags@r, count@r (indices 4r to 4r + 3).
fn buffers(ranks: u32) -> Vec<Buffer> {
    (0..ranks)
        .flat_map(|r| {
            [
                buffer(format!("out@{r}"), SIZE, true),
                buffer(format!("a@{r}"), SIZE, true),
                buffer(
                    format!("flags@{r}"),
                    ranks as usize * BLOCKS as usize,
                    false,
                ),
                buffer(format!("count@{r}"), BLOCKS as usize, false),
            ]
        })
        .collect()
}

/// Step 1: every rank fills its input; step 2: every rank runs `entry`.
fn all_reduce(entry: &str, ranks: u32) -> Vec<Launch> {
    let n = |r: u32, k: usize| 4 * r as usize + k;
    let table = |k: usize| Param::Pointers((0..ranks).map(|p| n(p, k)).collect());
    let fill = (0..ranks).map(|r| {
        launch(
            "fill",
            r,
            vec![Param::Buffer(n(r, 1)), word(r), word(SIZE as u32)],
        )
    });
    let reduce = (0..ranks).map(|r| {
        let args = vec![
            Param::Buffer(n(r, 0)),
            table(1),
            table(2),
            Param::Buffer(n(r, 3)),
            word(r),
            word(ranks),
            word(SIZE as u32),
        ];
        launch(entry, r, args)
    });
    fill.chain(reduce).collect()
}

fn run(launches: &[Launch], buffers: &[Buffer], seed: u64) -> Run {
    let config = Config {
        seed,
        limits: crate::Limits {
            timeout: Duration::from_secs(60),
            ..crate::Limits::default()
        },
        ..Config::default()
    };
    crate::run(module(), launches, buffers, &SameLines, &config).expect("runs")
}

fn floats(run: &Run, buffer: usize, n: usize) -> Vec<f32> {
    run.buffers[buffer][16..16 + 4 * n]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn kinds(hazards: &[Hazard]) -> Vec<Kind> {
    hazards.iter().map(|h| h.kind).collect()
}

/// Every rank's output is the sum of every rank's input: (i + 1)·N(N+1)/2.
#[test]
fn a_one_shot_all_reduce_sums_at_2_4_and_8_ranks() {
    for ranks in [2, 4, 8] {
        for seed in [0, 1] {
            let r = run(&all_reduce("all_reduce", ranks), &buffers(ranks), seed);
            assert!(
                r.findings.hazards.is_empty(),
                "{ranks} ranks: {:#?}",
                r.findings.hazards
            );
            let want: Vec<f32> = (0..SIZE)
                .map(|i| ((i + 1) as u32 * ranks * (ranks + 1) / 2) as f32)
                .collect();
            for rank in 0..ranks as usize {
                assert_eq!(
                    floats(&r, 4 * rank, SIZE),
                    want,
                    "{ranks} ranks, rank {rank}"
                );
            }
            // Each block met every rank twice a run, and the checker made
            // the run twice (RUNS): its count says so.
            let met = 2 * crate::run::ranks::RUNS as u8;
            let count = &r.buffers[4 * ranks as usize - 1][16..16 + 4 * BLOCKS as usize];
            assert_eq!(count, [met, 0, 0, 0, met, 0, 0, 0], "{ranks} ranks");
            let threads = 2 * u64::from(ranks * BLOCKS * TPB) * crate::run::ranks::RUNS as u64;
            assert_eq!(r.findings.access.threads, threads);
        }
    }
}

/// (kernel, ranks, the hazard expected, words its message must have). The
/// source lines are `testdata/ranks.cu`'s: 59, the read of a peer's input;
/// 39, the poll that never ends.
#[test]
fn mistakes_across_ranks_are_found_at_their_lines() {
    let cases: [(&str, u32, Kind, usize, &[&str]); 5] = [
        (
            "all_reduce_no_entry",
            2,
            Kind::Race,
            59,
            &["on rank 0", "on rank 1", "ordered only by a flag"],
        ),
        (
            "all_reduce_no_entry",
            4,
            Kind::Race,
            59,
            &["on rank", "writes it at line 19"],
        ),
        (
            "all_reduce_device_scope",
            2,
            Kind::Race,
            59,
            &["use cuda::thread_scope_system", "device-scoped release"],
        ),
        (
            "all_reduce_volatile_poll",
            2,
            Kind::Race,
            59,
            &["on rank 0", "on rank 1"],
        ),
        (
            "all_reduce_no_signal",
            4,
            Kind::Deadlock,
            39,
            &[
                "on rank 0",
                "waits at line 39 for a flag that no thread of any rank will set",
            ],
        ),
    ];
    for (entry, ranks, kind, line, words) in cases {
        let started = Instant::now();
        let r = run(&all_reduce(entry, ranks), &buffers(ranks), 0);
        let found: Vec<&Hazard> = r
            .findings
            .hazards
            .iter()
            .filter(|h| h.kind == kind)
            .collect();
        assert!(
            found.iter().any(|h| h.at == line),
            "{entry} at {ranks} ranks: {:#?}",
            r.findings.hazards
        );
        let message = &found.iter().find(|h| h.at == line).expect("found").message;
        for w in words {
            assert!(message.contains(w), "{entry}: `{w}` not in: {message}");
        }
        // A deadlock is seen when nothing changes, not when the time runs out.
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "{entry}: {:?}",
            started.elapsed()
        );
        assert!(
            !kinds(&r.findings.hazards).contains(&Kind::Uninitialized),
            "{entry}: {:#?}",
            r.findings.hazards
        );
    }
}

/// A poll that sleeps between its loads (`__nanosleep`) on a flag nobody
/// sets is a deadlock too, found as soon (line 94 of `testdata/ranks.cu`).
#[test]
fn a_poll_that_sleeps_is_a_deadlock_too() {
    let started = Instant::now();
    let launches: Vec<Launch> = (0..2)
        .map(|rank| {
            let args = vec![
                Param::Buffer(4 * rank as usize),
                Param::Pointers(vec![2, 6]),
                word(rank),
            ];
            Launch {
                grid: [1, 1, 1],
                ..launch("poll_sleeping", rank, args)
            }
        })
        .collect();
    let r = run(&launches, &buffers(2), 0);
    let got: Vec<(Kind, usize)> = r.findings.hazards.iter().map(|h| (h.kind, h.at)).collect();
    assert_eq!(got, [(Kind::Deadlock, 94)], "{:#?}", r.findings.hazards);
    assert!(
        r.findings.hazards[0].message.contains("on rank 0"),
        "{}",
        r.findings.hazards[0].message
    );
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// The negative controls: a peer that signals late (after a long
/// computation) and a poll that gives up are no deadlock; the mistakes
/// above run clean on one rank, where nothing crosses ranks.
#[test]
fn late_signals_bounded_polls_and_one_rank_are_no_mistake() {
    let r = run(&all_reduce("all_reduce_late_signal", 3), &buffers(3), 0);
    assert!(
        r.findings.hazards.is_empty(),
        "late: {:#?}",
        r.findings.hazards
    );
    assert_eq!(floats(&r, 0, 2), [6.0, 12.0], "late");
    // Two ranks' threads (one block each) poll a flag nobody sets, 300 times each.
    let bounded: Vec<Launch> = (0..2)
        .map(|rank| {
            let args = vec![
                Param::Buffer(4 * rank as usize),
                Param::Pointers(vec![2, 6]),
                word(rank),
                word(300),
            ];
            Launch {
                grid: [1, 1, 1],
                ..launch("poll_bounded", rank, args)
            }
        })
        .collect();
    let r = run(&bounded, &buffers(2), 0);
    assert!(
        r.findings.hazards.is_empty(),
        "bounded: {:#?}",
        r.findings.hazards
    );
    assert_eq!(floats(&r, 4, 3), [300.0; 3], "bounded");
    for entry in [
        "all_reduce_no_entry",
        "all_reduce_device_scope",
        "all_reduce_volatile_poll",
    ] {
        let mut launches = all_reduce(entry, 1);
        launches.iter_mut().for_each(|l| l.rank = 0);
        let r = run(&launches, &buffers(1), 0);
        assert!(
            r.findings.hazards.is_empty(),
            "{entry} on one rank: {:#?}",
            r.findings.hazards
        );
        assert_eq!(floats(&r, 0, 2), [1.0, 2.0], "{entry} on one rank");
    }
}

/// Each rank reads its own parameters (its rank, its table) in a step:
/// out@r[i] = a@((r + 1) % 3)[i] + 1000·r, inputs set by the host.
#[test]
fn each_rank_reads_its_own_parameters() {
    let ranks = 3u32;
    let mut buffers = buffers(ranks);
    for r in 0..ranks as usize {
        let values: Vec<u8> = (0..SIZE)
            .flat_map(|i| ((100 * r + i) as f32).to_le_bytes())
            .collect();
        buffers[4 * r + 1].bytes[16..16 + 4 * SIZE].copy_from_slice(&values);
        buffers[4 * r + 1].poisoned = false;
    }
    let launches: Vec<Launch> = (0..ranks)
        .map(|r| {
            let table = Param::Pointers((0..ranks as usize).map(|p| 4 * p + 1).collect());
            let args = vec![
                Param::Buffer(4 * r as usize),
                table,
                word(r),
                word(ranks),
                word(SIZE as u32),
            ];
            launch("pull_next", r, args)
        })
        .collect();
    let r = run(&launches, &buffers, 0);
    assert!(r.findings.hazards.is_empty(), "{:#?}", r.findings.hazards);
    for rank in 0..ranks as usize {
        let next = (rank + 1) % 3;
        let want: Vec<f32> = (0..SIZE)
            .map(|i| (100 * next + i) as f32 + 1000.0 * rank as f32)
            .collect();
        assert_eq!(floats(&r, 4 * rank, SIZE), want, "rank {rank}");
    }
}

/// What a step cannot be is refused in words: a rank twice in one step,
/// ranks with different kernels, a table too long for its parameter.
#[test]
fn steps_the_checker_cannot_run_are_refused() {
    let mut twice = all_reduce("all_reduce", 2);
    twice[3].rank = 1;
    twice[2].rank = 1;
    let mut mixed = all_reduce("all_reduce", 2);
    mixed[3].entry = "all_reduce_no_entry".into();
    let mut long = all_reduce("all_reduce", 2);
    long[2].args[1] = Param::Pointers(vec![1; 9]);
    let cases = [
        (twice, "twice in one step"),
        (mixed, "one kernel and one shape"),
        (long, "too few for a table of 9 addresses"),
    ];
    for (launches, words) in cases {
        let got = crate::run(
            module(),
            &launches,
            &buffers(2),
            &SameLines,
            &Config::default(),
        );
        let message = got.expect_err(words).to_string();
        assert!(message.contains(words), "{message}");
    }
}
