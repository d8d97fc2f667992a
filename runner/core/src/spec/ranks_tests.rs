//! Table tests of specs on several GPUs: the flat names and ranks of their
//! buffers and scalars, their launches per rank, peer tables, per-rank
//! contents, the collective references, and each mistake at its line.

use super::expr::Constants;
use super::model::{Arg, Buffer, Spec};
use super::resolve::PuzzleSpec;
use crate::source::diag::Located;
use std::path::Path;

/// A one-shot all-reduce on `RANKS` GPUs (its YAML line 1 is chapter line 10).
const ALL_REDUCE: &str = "\
id: p38_all_reduce
title: All-reduce
kernel: all_reduce
reference: all_reduce
const: { RANKS: 2, SIZE: 8, TPB: 8 }
gpus: RANKS
grid: [1]
block: [TPB]
why_no_kernel: { wgsl: \"WebGPU drives one GPU\" }
buffers:
  a: { len: SIZE, init: [arange, ones] }
  out: { len: SIZE, output: true }
  flags: { len: RANKS, type: u32, init: zeros }
peers:
  a_all: a
  flags_all: flags
scalars:
  rank: { type: u32, value: RANK }
  size: { type: u32, value: SIZE }
args: [out, a_all, flags_all, rank, size]
expect:
  out: [1, 2, 3, 4, 5, 6, 7, 8]
bus_bytes: \"SIZE * 4 * 2 * (RANKS - 1) / RANKS\"
stress:
  - { RANKS: 4, SIZE: 999 }
  - { RANKS: 8, SIZE: 257 }
";

fn parse(text: &str) -> Result<PuzzleSpec, Located> {
    PuzzleSpec::parse(text, Path::new("ch.md"), 10)
}

fn at(constants: &[(&str, i64)]) -> Constants {
    constants.iter().map(|(k, v)| (k.to_string(), *v)).collect()
}

fn names(spec: &Spec) -> Vec<&str> {
    spec.args.iter().map(Arg::name).collect()
}

fn buffer<'a>(spec: &'a Spec, name: &str) -> &'a Buffer {
    spec.buffers()
        .find(|b| b.name == name)
        .unwrap_or_else(|| panic!("no buffer `{name}` in {:?}", names(spec)))
}

fn scalar(spec: &Spec, name: &str) -> f64 {
    spec.args
        .iter()
        .find_map(|a| match a {
            Arg::Scalar { name: n, value, .. } if n == name => Some(*value),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no scalar `{name}`"))
}

/// The flat names, in argument order, at 2 ranks (as written) and 4 (a stress case).
#[test]
fn buffers_are_one_per_rank_table() {
    let spec = parse(ALL_REDUCE).unwrap();
    let two = spec.resolve(&Constants::new()).unwrap();
    let four = spec
        .resolve_stress(&at(&[("RANKS", 4), ("SIZE", 999)]))
        .unwrap();
    let cases: [(&Spec, u32, &[&str]); 2] = [
        (
            &two,
            2,
            &[
                "out@0",
                "out@1",
                "a@0",
                "a@1",
                "a_all",
                "flags@0",
                "flags@1",
                "flags_all",
                "rank@0",
                "rank@1",
                "size",
            ],
        ),
        (
            &four,
            4,
            &[
                "out@0",
                "out@1",
                "out@2",
                "out@3",
                "a@0",
                "a@1",
                "a@2",
                "a@3",
                "a_all",
                "flags@0",
                "flags@1",
                "flags@2",
                "flags@3",
                "flags_all",
                "rank@0",
                "rank@1",
                "rank@2",
                "rank@3",
                "size",
            ],
        ),
    ];
    for (spec, gpus, want) in cases {
        assert_eq!(spec.gpus, gpus);
        assert_eq!(names(spec), want, "{gpus} ranks");
        for b in spec.buffers() {
            let rank: u32 = b.name.rsplit('@').next().unwrap().parse().unwrap();
            assert_eq!(b.rank, Some(rank), "{}", b.name);
        }
        // Each rank's own index; shared scalars once.
        for r in 0..gpus {
            assert_eq!(scalar(spec, &format!("rank@{r}")), r as f64);
        }
        assert_eq!(
            spec.bus_bytes,
            Some(spec.constants["SIZE"] as u64 * 4 * 2 * (gpus as u64 - 1) / gpus as u64)
        );
        assert_eq!(spec.outputs().count(), gpus as usize);
    }
    assert_eq!(buffer(&four, "a@3").len(), 999);
    assert_eq!(buffer(&two, "flags@1").len(), 2, "RANKS follows the case");
    assert_eq!(buffer(&four, "flags@1").len(), 4);
}

/// Each step once per rank, step-major and rank-minor, with that rank's
/// buffers and scalars and the shared scalars and peer tables.
#[test]
fn launches_are_step_major_and_rank_minor() {
    let one = parse(ALL_REDUCE)
        .unwrap()
        .resolve(&Constants::new())
        .unwrap();
    // out@0 0, out@1 1, a@0 2, a@1 3, a_all 4, flags@0 5, flags@1 6,
    // flags_all 7, rank@0 8, rank@1 9, size 10.
    let got: Vec<(&str, u32, &[usize])> = one
        .launches
        .iter()
        .map(|l| (l.kernel.as_str(), l.rank, &l.args[..]))
        .collect();
    assert_eq!(
        got,
        [
            ("all_reduce", 0, &[0, 4, 7, 8, 10][..]),
            ("all_reduce", 1, &[1, 4, 7, 9, 10][..]),
        ]
    );
    let steps = ALL_REDUCE
        .replace(
            "kernel: all_reduce\n",
            "steps:\n  - { kernel: sum, grid: [1], block: [TPB] }\n  \
             - { kernel: bump, grid: [2], block: [4], args: [flags_all, rank] }\n",
        )
        .replace("grid: [1]\nblock: [TPB]\n", "");
    let spec = parse(&steps)
        .unwrap()
        .resolve_stress(&at(&[("RANKS", 3)]))
        .unwrap();
    let got: Vec<(&str, u32, Vec<&str>)> = spec
        .launches
        .iter()
        .map(|l| {
            let args = spec.launch_args(l).map(Arg::name).collect();
            (l.kernel.as_str(), l.rank, args)
        })
        .collect();
    let want: Vec<(&str, u32, Vec<&str>)> = vec![
        (
            "sum",
            0,
            vec!["out@0", "a_all", "flags_all", "rank@0", "size"],
        ),
        (
            "sum",
            1,
            vec!["out@1", "a_all", "flags_all", "rank@1", "size"],
        ),
        (
            "sum",
            2,
            vec!["out@2", "a_all", "flags_all", "rank@2", "size"],
        ),
        ("bump", 0, vec!["flags_all", "rank@0"]),
        ("bump", 1, vec!["flags_all", "rank@1"]),
        ("bump", 2, vec!["flags_all", "rank@2"]),
    ];
    assert_eq!(got, want);
    assert_eq!(spec.launches[4].grid, [2, 1, 1]);
}

/// A peer table holds the indices of its buffer's copies, rank by rank.
#[test]
fn peer_tables_list_every_rank() {
    let spec = parse(ALL_REDUCE)
        .unwrap()
        .resolve_stress(&at(&[("RANKS", 4)]))
        .unwrap();
    let tables: Vec<(&str, Vec<&str>)> = spec
        .args
        .iter()
        .filter_map(|a| match a {
            Arg::Peers { name, of } => Some((
                name.as_str(),
                of.iter().map(|&i| spec.args[i].name()).collect(),
            )),
            _ => None,
        })
        .collect();
    assert_eq!(
        tables,
        [
            ("a_all", vec!["a@0", "a@1", "a@2", "a@3"]),
            (
                "flags_all",
                vec!["flags@0", "flags@1", "flags@2", "flags@3"]
            ),
        ]
    );
}

/// Rank r's contents: a per-rank list's entry r; `random S` with seed S + r
/// (so ranks differ), `place: copy` rank 0's on every rank; other words as
/// written; stress inputs random by position, so they differ too.
#[test]
fn contents_per_rank_table() {
    let text = ALL_REDUCE
        .replace(
            "  flags: { len: RANKS, type: u32, init: zeros }\n",
            "  flags: { len: RANKS, type: u32, init: zeros }\n  \
             r: { len: SIZE, init: random 3 }\n  \
             w: { len: SIZE, init: random 3, place: copy }\n  \
             slab: { len: SIZE, init: arange, place: 1 }\n",
        )
        .replace(
            "args: [out, a_all, flags_all, rank, size]",
            "args: [out, a_all, flags_all, rank, size, r, w, slab]",
        );
    let spec = parse(&text).unwrap();
    let init = |s: &Spec, name: &str| buffer(s, name).init.clone().unwrap();
    let written = spec.resolve(&Constants::new()).unwrap();
    let arange: Vec<f64> = (0..8).map(f64::from).collect();
    assert_eq!(init(&written, "a@0"), arange);
    assert_eq!(init(&written, "a@1"), [1.0; 8]);
    assert_eq!(init(&written, "flags@0"), init(&written, "flags@1"));
    assert_ne!(init(&written, "r@0"), init(&written, "r@1"));
    assert_eq!(
        init(&written, "r@1"),
        super::data::Values::Random(4).materialize(8).unwrap(),
        "seed 3 + rank 1"
    );
    assert_eq!(init(&written, "w@0"), init(&written, "w@1"));
    assert_eq!(init(&written, "r@0"), init(&written, "w@1"));
    // `place: 1`: one buffer, on GPU 1, passed to every rank's launch.
    let slab = buffer(&written, "slab");
    assert_eq!(
        (slab.rank, slab.init.as_deref()),
        (Some(1), Some(&arange[..]))
    );
    let slab_index = written.args.iter().position(|a| a.name() == "slab");
    assert!(
        written
            .launches
            .iter()
            .all(|l| l.args.last() == slab_index.as_ref())
    );

    let stressed = spec.resolve_stress(&at(&[("RANKS", 3)])).unwrap();
    assert_ne!(init(&stressed, "a@0"), init(&stressed, "a@1"));
    assert_ne!(init(&stressed, "a@1"), init(&stressed, "a@2"));
    assert_eq!(init(&stressed, "w@0"), init(&stressed, "w@2"));
    assert!(
        init(&stressed, "a@2").iter().any(|v| v.fract() != 0.0),
        "random"
    );
}

/// Expected values: one list is every rank's, a list of lists rank r's own,
/// `reference` the CPU reference's for each `out@r`.
#[test]
fn expected_values_per_rank_table() {
    let sum: Vec<f64> = (1..=8).map(f64::from).collect();
    let arange: Vec<f64> = (0..8).map(f64::from).collect();
    // (the `expect` line, the reference, out@0, out@1)
    let cases: [(&str, &str, &[f64], &[f64]); 4] = [
        ("  out: [1, 2, 3, 4, 5, 6, 7, 8]", "all_reduce", &sum, &sum),
        ("  out: reference", "all_reduce", &sum, &sum),
        ("  out: reference", "peer_copy", &[1.0; 8], &arange),
        (
            "  out: [[1, 1, 1, 1, 1, 1, 1, 1], arange]",
            "peer_copy",
            &[1.0; 8],
            &arange,
        ),
    ];
    for (line, reference, out0, out1) in cases {
        let text = ALL_REDUCE
            .replace("  out: [1, 2, 3, 4, 5, 6, 7, 8]", line)
            .replace("reference: all_reduce", &format!("reference: {reference}"));
        let spec = parse(&text).unwrap().resolve(&Constants::new()).unwrap();
        let expect = |name| buffer(&spec, name).expect.clone().unwrap();
        assert_eq!(expect("out@0"), out0, "{line} {reference}");
        assert_eq!(expect("out@1"), out1, "{line} {reference}");
    }
}

/// At 4 and 8 ranks with random inputs: every rank's all-reduce is the sum
/// of every rank's `a`, and each rank's copy its neighbour's `a`.
#[test]
fn collective_references_table() {
    for ranks in [4, 8] {
        for reference in ["all_reduce", "peer_copy"] {
            let text =
                ALL_REDUCE.replace("reference: all_reduce", &format!("reference: {reference}"));
            let spec = parse(&text)
                .unwrap()
                .resolve_stress(&at(&[("RANKS", ranks), ("SIZE", 33)]))
                .unwrap();
            let a: Vec<Vec<f64>> = (0..ranks)
                .map(|r| buffer(&spec, &format!("a@{r}")).init.clone().unwrap())
                .collect();
            for r in 0..ranks as usize {
                let out = buffer(&spec, &format!("out@{r}")).expect.clone().unwrap();
                let want: Vec<f64> = match reference {
                    "all_reduce" => (0..33).map(|i| a.iter().map(|a| a[i]).sum()).collect(),
                    _ => a[(r + 1) % ranks as usize].clone(),
                };
                assert_eq!(out, want, "{reference} at {ranks} ranks, rank {r}");
            }
        }
    }
}

/// One GPU: `gpus` absent, the spec as ever (no ranks, no `@`).
#[test]
fn one_gpu_is_unchanged() {
    let text = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\n\
        buffers:\n  out: { len: 4, output: true }\n  a: { len: 4, init: random 1 }\n\
        args: [out, a]\nexpect:\n  out: [0, 0, 0, 0]\n";
    let spec = parse(text).unwrap().resolve(&Constants::new()).unwrap();
    assert_eq!((spec.gpus, spec.bus_bytes), (1, None));
    assert_eq!(names(&spec), ["out", "a"]);
    assert!(spec.buffers().all(|b| b.rank.is_none()));
    assert_eq!(spec.launches.len(), 1);
    assert_eq!(
        (spec.launches[0].rank, &spec.launches[0].args[..]),
        (0, &[0, 1][..])
    );
}

/// How many GPUs a case takes, read without resolving the buffers (what
/// `runner record` files each case under), agrees with resolving it.
#[test]
fn gpus_of_a_case_table() {
    let one = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\n\
        buffers:\n  out: { len: 4, output: true }\nargs: [out]\nexpect:\n  out: [0, 0, 0, 0]\n";
    // (spec, the case's constants, GPUs)
    let cases: [(&str, &[(&str, i64)], u32); 4] = [
        (ALL_REDUCE, &[], 2),
        (ALL_REDUCE, &[("RANKS", 4)], 4),
        (ALL_REDUCE, &[("RANKS", 8), ("SIZE", 3)], 8),
        (one, &[], 1),
    ];
    for (text, case, gpus) in cases {
        let spec = parse(text).unwrap();
        assert_eq!(spec.gpus(&at(case)), gpus, "{case:?}");
        assert_eq!(spec.sized(&at(case)).unwrap().gpus, gpus, "{case:?}");
    }
}

/// Each mistake names its chapter line (YAML line + 9; 9 is the block's
/// fence: the spec as a whole).
#[test]
fn mistakes_name_their_line_table() {
    const ONE_GPU: &str = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\n\
        buffers:\n  out: { len: 4, output: true }\n  a: { len: 4, init: arange }\n\
        scalars:\n  size: { type: u32, value: 4 }\n\
        args: [out, a, size]\nexpect:\n  out: [0, 0, 0, 0]\n";
    // (the spec, what to replace, with what, the chapter line, the words)
    let cases: &[(&str, &str, &str, usize, &str)] = &[
        (
            ALL_REDUCE,
            "gpus: RANKS",
            "gpus: 1",
            15,
            "`gpus` is 1; a spec runs on 2 to 8 GPUs",
        ),
        (
            ALL_REDUCE,
            "RANKS: 2,",
            "RANKS: 9,",
            15,
            "`gpus` is 9; a spec runs on 2 to 8 GPUs",
        ),
        (
            ALL_REDUCE,
            "gpus: RANKS",
            "gpus: RANK",
            15,
            "gpus: unknown constant `RANK`",
        ),
        (
            ALL_REDUCE,
            "  - { RANKS: 8, SIZE: 257 }",
            "  - { RANKS: 16, SIZE: 257 }",
            35,
            "stress case: `gpus` is 16",
        ),
        (
            ALL_REDUCE,
            "why_no_kernel: { wgsl: \"WebGPU drives one GPU\" }\n",
            "",
            15,
            "needs `why_no_kernel: { wgsl: \"...\" }`: WebGPU drives one GPU",
        ),
        (
            ALL_REDUCE,
            "gpus: RANKS\n",
            "",
            23,
            "`peers` (`a_all`) needs `gpus:`",
        ),
        (
            ALL_REDUCE,
            "  a_all: a",
            "  a_all: b",
            24,
            "peer table `a_all` names `b`, which is not a buffer (buffers: a, flags, out)",
        ),
        (
            ALL_REDUCE,
            "  a_all: a",
            "  a_all: a\n  a: out",
            25,
            "peer table `a` has the name of a buffer or scalar",
        ),
        (
            ALL_REDUCE,
            "  a_all: a",
            "  a_all: a\n  out_all: out",
            25,
            "`out_all` is declared but not listed in `args`",
        ),
        (
            ALL_REDUCE,
            "  a: { len: SIZE, init: [arange, ones] }",
            "  a: { len: SIZE, init: [arange, ones], place: 0 }",
            24,
            "peer table `a_all` names `a`, which has `place: 0`",
        ),
        (
            ALL_REDUCE,
            "  a: { len: SIZE, init: [arange, ones] }",
            "  a: { len: SIZE, init: [arange, ones, zeros] }",
            20,
            "init of `a` lists 3 entries, one per rank, but the spec runs on 2 GPUs",
        ),
        (
            ALL_REDUCE,
            "  a: { len: SIZE, init: [arange, ones] }",
            "  a: { len: SIZE, init: [arange, 1] }",
            20,
            "is neither a list of numbers (every rank's the same) nor one entry per rank",
        ),
        (
            ALL_REDUCE,
            "  out: [1, 2, 3, 4, 5, 6, 7, 8]",
            "  out: [[1], [2]]",
            31,
            "expect of `out` lists 1 values but the buffer has 8 elements",
        ),
        (
            ALL_REDUCE,
            "  out: { len: SIZE, output: true }",
            "  out: { len: SIZE, output: true, place: 2 }",
            21,
            "buffer `out` has `place: 2`, but the spec runs on 2 GPUs (0 to 1)",
        ),
        (
            ALL_REDUCE,
            "  out: { len: SIZE, output: true }",
            "  out: { len: SIZE, output: true, place: copy }",
            21,
            "`place: copy`, which gives every rank rank 0's `init`, but it has no `init`",
        ),
        (
            ALL_REDUCE,
            "  out: { len: SIZE, output: true }",
            "  out: { len: SIZE, output: true, place: all }",
            21,
            "`place: all`: write `each` (the default), `copy`, or a GPU's number",
        ),
        (
            ALL_REDUCE,
            "const: { RANKS: 2,",
            "const: { RANK: 0, RANKS: 2,",
            9,
            "`RANK` is reserved",
        ),
        (
            ALL_REDUCE,
            "bus_bytes: \"SIZE * 4 * 2 * (RANKS - 1) / RANKS\"",
            "bus_bytes: \"0 - SIZE\"",
            32,
            "`bus_bytes` is -8; it must be 0 or more",
        ),
        (
            ALL_REDUCE,
            "args: [out, a_all, flags_all, rank, size]",
            "args: [out, a_all, flags_all, rank, size, b_all]",
            29,
            "`args` names `b_all`, which is neither a buffer nor a scalar nor a peer table",
        ),
        (
            ONE_GPU,
            "  size: { type: u32, value: 4 }",
            "  size: { type: u32, value: \"RANK + 1\" }",
            19,
            "scalar `size` uses `RANK`, each GPU's own index, which needs `gpus:`",
        ),
        (
            ONE_GPU,
            "args:",
            "bus_bytes: 64\nargs:",
            20,
            "`bus_bytes` needs `gpus:`",
        ),
        (
            ONE_GPU,
            "  a: { len: 4, init: arange }",
            "  a: { len: 4, init: arange, place: copy }",
            17,
            "buffer `a` has `place: copy`, which needs `gpus:`",
        ),
        (
            ONE_GPU,
            "  a: { len: 4, init: arange }",
            "  a: { len: 4, init: [arange, ones] }",
            17,
            "init of `a` has one entry per rank, which needs `gpus:`",
        ),
        (
            ONE_GPU,
            "args:",
            "gpus: 2\nargs:",
            20,
            "needs `why_no_kernel",
        ),
    ];
    for (spec, target, replacement, line, words) in cases {
        assert!(spec.contains(target), "{target}");
        let err = parse(&spec.replacen(target, replacement, 1)).expect_err(replacement);
        assert!(err.message.contains(words), "{replacement}: {err}");
        assert_eq!(err.line, *line, "{replacement}: {err}");
    }
    // Writing out every rank's expected values checks them at the teaching
    // size only: another RANKS would need another list.
    let spec = parse(ALL_REDUCE).unwrap();
    let err = spec
        .resolve(&at(&[("RANKS", 3)]))
        .expect_err("a per-rank list of 2 at 3 ranks");
    assert!(
        err.message
            .contains("lists 2 entries, one per rank, but the spec runs on 3 GPUs"),
        "{err}"
    );
}

/// The backends' shared check refuses a launch on a rank the spec has not.
#[test]
fn launches_stay_on_the_spec_s_ranks() {
    use crate::backend_contract::backend::check_launch_basics;
    let mut spec = parse(ALL_REDUCE)
        .unwrap()
        .resolve(&Constants::new())
        .unwrap();
    assert!(check_launch_basics(&spec).is_ok());
    spec.launches[1].rank = 2;
    let err = check_launch_basics(&spec).unwrap_err().to_string();
    assert!(
        err.contains(
            "`all_reduce` is launched on rank 2, but the spec runs on 2 GPUs (ranks 0 to 1)"
        ),
        "{err}"
    );
}
