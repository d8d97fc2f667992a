//! Table tests of parsing and resolving specs: each malformed spec names its line.

use super::data::Dtype;
use super::expr::Constants;
use super::model::Arg;
use super::resolve::PuzzleSpec;
use crate::source::diag::Located;
use std::path::Path;

const BASE: &str = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\n\
buffers:\n  out: { len: 4, output: true }\nargs: [out]\nexpect:\n  out: [0, 0, 0, 0]\n";

/// (the key as written on the spec's line 11, the bound, or the error's chapter line and words).
#[test]
fn parses_strictly_table() {
    let cases: &[(&str, Result<(u32, u32), &str>)] = &[
        ("global_access: { reads: 2, writes: 1 }", Ok((2, 1))),
        ("global_access: { reads: 0, writes: 0 }", Ok((0, 0))),
        ("global_access: { reads: 2, wrties: 1 }", Err("wrties")),
        ("global_access: { reads: 2 }", Err("writes")),
        ("global_access: { reads: -1, writes: 1 }", Err("")),
        ("global_access: 2", Err("")),
    ];
    for (line, want) in cases {
        let text = format!("{BASE}{line}\n");
        let got = PuzzleSpec::parse(&text, Path::new("ch.md"), 100);
        match (got, want) {
            (Ok(spec), Ok((r, w))) => {
                let bound = spec.raw.global_access.expect("a bound");
                assert_eq!((bound.reads, bound.writes), (*r, *w), "{line}");
            }
            (Err(e), Err(words)) => {
                assert_eq!(e.line, 110, "{line}: {e}");
                assert!(e.message.contains(words), "{line}: {e}");
            }
            (got, _) => panic!("{line}: {:?}", got.map(|s| s.raw.global_access)),
        }
    }
    let none = PuzzleSpec::parse(BASE, Path::new("ch.md"), 100).expect("parses");
    assert_eq!(none.raw.global_access, None);
}

/// A debugging case's `bug`: one of the findings, spelled as the spec spells it.
#[test]
fn bug_names_a_finding_table() {
    use crate::spec::finding::Finding;
    let cases: &[(&str, Result<Finding, ()>)] = &[
        ("bug: race", Ok(Finding::Race)),
        ("bug: out_of_bounds", Ok(Finding::OutOfBounds)),
        ("bug: divergent_barrier", Ok(Finding::DivergentBarrier)),
        ("bug: racy", Err(())),
        ("bug: [race]", Err(())),
    ];
    for (line, want) in cases {
        let got = PuzzleSpec::parse(&format!("{BASE}{line}\n"), Path::new("ch.md"), 100);
        match (got, want) {
            (Ok(spec), Ok(finding)) => assert_eq!(spec.raw.bug, Some(*finding), "{line}"),
            (Err(e), Err(())) => assert_eq!(e.line, 110, "{line}: {e}"),
            (got, _) => panic!("{line}: {:?}", got.map(|s| s.raw.bug)),
        }
    }
}

const GOOD: &str = "\
id: p06_blocks
title: Blocks
kernel: add_10_blocks
const: { SIZE: 9, TPB: 4 }
grid: [\"(SIZE + TPB - 1) / TPB\"]
block: [TPB]
buffers:
  out: { len: SIZE, output: true }
  a: { len: SIZE, init: arange }
scalars:
  size: { type: u32, value: SIZE }
args: [out, a, size]
expect:
  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]
";

fn parse(text: &str) -> Result<PuzzleSpec, Located> {
    PuzzleSpec::parse(text, Path::new("ch.md"), 10)
}

#[test]
fn resolves_a_good_spec() {
    let spec = parse(GOOD).unwrap().resolve(&Constants::new()).unwrap();
    assert_eq!(spec.launches.len(), 1);
    assert_eq!(spec.launches[0].grid, [3, 1, 1]);
    assert_eq!(spec.launches[0].block, [4, 1, 1]);
    assert_eq!(spec.launches[0].args, [0, 1, 2]);
    let names: Vec<&str> = spec.args.iter().map(Arg::name).collect();
    assert_eq!(names, ["out", "a", "size"]);
    assert_eq!(spec.outputs().count(), 1);
    assert_eq!(
        spec.args[2],
        Arg::Scalar {
            name: "size".into(),
            dtype: Dtype::U32,
            value: 9.0
        }
    );
}

#[test]
fn stress_runs_use_random_inputs_and_the_reference() {
    let text = GOOD.to_string() + "stress:\n  - { SIZE: 1001 }\n";
    let spec = parse(&text).unwrap();
    let cases = spec.stress_cases();
    assert_eq!(cases.len(), 1);
    let stressed = spec.resolve_stress(&cases[0]).unwrap();
    assert_eq!(stressed.launches[0].grid, [251, 1, 1]);
    let a = stressed
        .buffers()
        .find(|b| b.name == "a")
        .unwrap()
        .init
        .clone()
        .unwrap();
    assert_eq!(a.len(), 1001);
    assert!(
        a.iter().any(|v| v.fract() != 0.0),
        "stress inputs are random, not arange"
    );
    let out = stressed.outputs().next().unwrap().expect.clone().unwrap();
    assert_eq!(
        out[500],
        a[500] + 10.0,
        "expected values come from the CPU reference"
    );
}

/// A buffer's type is `dtype` or `type`; 16-bit inputs reach the CPU
/// reference as the device holds them, rounded to nearest even.
#[test]
fn sixteen_bit_buffers_hold_rounded_inputs() {
    let inputs = "[3.14159, 1.00390625, 1.01171875, 0.5, -2, 0, 0, 0, 65519]";
    // (the buffers as written, the type, `a` as the reference sees it)
    let cases = [
        (
            "type: bf16",
            Dtype::Bf16,
            [3.140625, 1.0, 1.015625, 0.5, -2.0, 0.0, 0.0, 0.0, 65536.0],
        ),
        (
            "dtype: f16",
            Dtype::F16,
            [
                3.140625, 1.00390625, 1.01171875, 0.5, -2.0, 0.0, 0.0, 0.0, 65504.0,
            ],
        ),
    ];
    for (written, dtype, held) in cases {
        let text = GOOD
            .replace(
                "  out: { len: SIZE, output: true }",
                &format!("  out: {{ len: SIZE, {written}, output: true }}"),
            )
            .replace(
                "  a: { len: SIZE, init: arange }",
                &format!("  a: {{ len: SIZE, {written}, init: {inputs} }}"),
            )
            .replace(
                "  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]",
                "  out: reference",
            );
        let spec = parse(&text).unwrap().resolve(&Constants::new()).unwrap();
        let a = spec.buffers().find(|b| b.name == "a").unwrap();
        assert_eq!(a.dtype, dtype, "{written}");
        assert_eq!(a.init.as_deref(), Some(&held[..]), "{written}");
        let out = spec.outputs().next().unwrap();
        assert_eq!(out.dtype, dtype, "{written}");
        let want: Vec<f64> = held.iter().map(|v| v + 10.0).collect();
        assert_eq!(
            out.expect,
            Some(want),
            "the reference adds to what the device holds"
        );
        assert_eq!(spec.min_bytes(), 2 * 9 * 2, "{written}");
    }
}

#[test]
fn stress_cases_are_checked_when_read() {
    let text = GOOD.to_string() + "stress:\n  - { WIDTH: 3 }\n";
    let err = parse(&text).unwrap_err();
    assert_eq!(err.line, 25, "{err}");
    assert!(err.message.contains("cannot set `WIDTH`"), "{err}");
}

/// A benchmark size names known constants and is read without resolving its buffers.
#[test]
fn bench_sizes_are_checked_when_read() {
    let cases = [
        ("bench:\n  - { SIZE: 268435456 }\n", None),
        (
            "bench:\n  - { WIDTH: 3 }\n",
            Some("bench: cannot set `WIDTH`"),
        ),
        ("bench:\n  - {}\n", Some("a `bench` case sets no constant")),
    ];
    for (tail, error) in cases {
        let text = GOOD.to_string() + tail;
        match (parse(&text), error) {
            (Ok(spec), None) => assert_eq!(
                spec.bench_cases(),
                vec![Constants::from([("SIZE".to_string(), 268_435_456)])]
            ),
            (Err(err), Some(want)) => {
                assert_eq!(err.line, 25, "{err}");
                assert!(err.message.contains(want), "{err}");
            }
            (got, _) => panic!("{tail}: {got:?}"),
        }
    }
}

#[test]
fn overrides_follow_through_every_size() {
    let spec = parse(GOOD).unwrap();
    let err = spec
        .resolve(&[("SIZE".to_string(), 17)].into())
        .unwrap_err();
    // The literal expect list no longer fits: that is reported, not ignored.
    assert!(
        err.message.contains("lists 9 values but the buffer has 17"),
        "{err}"
    );
    assert!(spec.resolve(&[("NOPE".to_string(), 1)].into()).is_err());
}

const TWO_STEPS: &str = "\
id: scan
title: Two kernels
reference: prefix_sum
const: { SIZE: 15, TPB: 8 }
steps:
  - kernel: local_scan
    grid: [\"(SIZE + TPB - 1) / TPB\"]
    block: [TPB]
  - kernel: add_block_sums
    grid: [\"(SIZE + TPB - 1) / TPB\"]
    block: [TPB]
    args: [out, sums, size]
buffers:
  out: { len: SIZE, output: true }
  a: { len: SIZE, init: arange }
  sums: { len: \"(SIZE + TPB - 1) / TPB\", scratch: true }
scalars:
  size: { type: u32, value: SIZE }
args: [out, a, sums, size]
expect:
  out: reference
";

#[test]
fn steps_share_buffers_and_reference_fills_expect() {
    let spec = parse(TWO_STEPS)
        .unwrap()
        .resolve(&Constants::new())
        .unwrap();
    assert_eq!(spec.launches.len(), 2);
    assert_eq!(
        spec.launches[0].args,
        [0, 1, 2, 3],
        "args default to the spec's"
    );
    assert_eq!(spec.launches[1].args, [0, 2, 3]);
    assert!(
        spec.launches.iter().all(|l| !l.setup),
        "a step is timed unless it says `setup: true`"
    );
    let with_setup = TWO_STEPS.replacen(
        "    block: [TPB]\n",
        "    block: [TPB]\n    setup: true\n",
        1,
    );
    let setup = parse(&with_setup)
        .unwrap()
        .resolve(&Constants::new())
        .unwrap();
    assert_eq!(
        setup.launches.iter().map(|l| l.setup).collect::<Vec<_>>(),
        [true, false]
    );
    assert_eq!(spec.outputs().count(), 1, "scratch is not judged");
    let out = spec.outputs().next().unwrap().expect.clone().unwrap();
    assert_eq!(out.last(), Some(&105.0), "from the CPU reference");
    assert_eq!(
        spec.min_bytes(),
        2 * 15 * 4,
        "scratch is not part of the problem"
    );
}

/// `repeat:` runs the timed steps that many times in a row, after the setup
/// steps once; a count out of range names its line.
#[test]
fn repeat_runs_the_timed_steps_in_rounds_table() {
    let with_setup = TWO_STEPS.replacen(
        "    block: [TPB]\n",
        "    block: [TPB]\n    setup: true\n",
        1,
    );
    let cases: &[(&str, &str, Result<(&[&str], u32), &str>)] = &[
        (TWO_STEPS, "", Ok((&["local_scan", "add_block_sums"], 1))),
        (
            TWO_STEPS,
            "repeat: 3\n",
            Ok((&["local_scan", "add_block_sums"].repeat(3), 3)),
        ),
        (
            &with_setup,
            "repeat: \"TPB / 4\"\n",
            Ok((&["local_scan", "add_block_sums", "add_block_sums"], 2)),
        ),
        (
            TWO_STEPS,
            "repeat: 0\n",
            Err("`repeat` is 0; it must be 1 to 1000"),
        ),
        (TWO_STEPS, "repeat: 1001\n", Err("it must be 1 to 1000")),
        (TWO_STEPS, "repeat: ROUNDS\n", Err("repeat: ")),
    ];
    for (base, tail, want) in cases {
        let text = base.to_string() + tail;
        match (
            parse(&text).and_then(|p| p.resolve(&Constants::new())),
            want,
        ) {
            (Ok(spec), Ok((kernels, rounds))) => {
                let got: Vec<&str> = spec.launches.iter().map(|l| l.kernel.as_str()).collect();
                assert_eq!((&got[..], spec.rounds), (*kernels, *rounds), "{tail}");
            }
            (Err(err), Err(message)) => {
                assert_eq!(err.line, 31, "{tail}: {err}");
                assert!(err.message.contains(message), "{tail}: {err}");
            }
            (got, _) => panic!("{tail}: {got:?}"),
        }
    }
}

/// Multi-kernel specs whose buffers do not line up name the line at fault.
#[test]
fn steps_that_do_not_line_up() {
    let cases: &[(&str, &str, &str, usize, &str)] = &[
        (
            "unknown arg",
            "    args: [out, sums, size]",
            "    args: [out, block_sums, size]",
            21,
            "passes `block_sums`, which is not in the spec's `args`",
        ),
        (
            "unused buffer",
            "  - kernel: local_scan",
            "  - kernel: local_scan\n    args: [out, sums, size]",
            15,
            "no step passes `a`",
        ),
        (
            "top-level kernel too",
            "steps:",
            "kernel: k\nsteps:",
            16,
            "remove them from the top level",
        ),
        (
            "scratch with init",
            "scratch: true }",
            "scratch: true, init: zeros }",
            25,
            "scratch buffer `sums` starts poisoned",
        ),
        (
            "setup after a timed step",
            "    args: [out, sums, size]",
            "    args: [out, sums, size]\n    setup: true",
            22,
            "step `add_block_sums` is a setup step after a timed one",
        ),
        (
            "nothing timed",
            "steps:\n  - kernel: local_scan\n    grid: [\"(SIZE + TPB - 1) / TPB\"]\n    block: [TPB]\n  - kernel: add_block_sums\n    grid: [\"(SIZE + TPB - 1) / TPB\"]\n    block: [TPB]",
            "steps:\n  - kernel: local_scan\n    setup: true\n    grid: [\"(SIZE + TPB - 1) / TPB\"]\n    block: [TPB]\n  - kernel: add_block_sums\n    setup: true\n    grid: [\"(SIZE + TPB - 1) / TPB\"]\n    block: [TPB]",
            15,
            "every step is a setup step",
        ),
        (
            "no kernel at all",
            "steps:",
            "unused:",
            0,
            "unknown field `unused`",
        ),
    ];
    for (name, target, replacement, line, message) in cases {
        assert!(TWO_STEPS.contains(target), "{name}");
        let err = parse(&TWO_STEPS.replacen(target, replacement, 1)).expect_err(name);
        assert!(err.message.contains(message), "{name}: {err}");
        if *line > 0 {
            assert_eq!(err.line, *line, "{name}: {err}");
        }
    }
    let without = TWO_STEPS.replace("reference: prefix_sum\n", "");
    let err = parse(&without).unwrap_err();
    assert!(err.message.contains("`scan` has no CPU reference"), "{err}");
}

#[test]
fn flops_are_an_expression_over_the_constants() {
    let with = GOOD.replace("args:", "flops: \"2 * SIZE\"\nargs:");
    let spec = parse(&with).unwrap().resolve(&Constants::new()).unwrap();
    assert_eq!(spec.flops, Some(18));
    let bad = GOOD.replace("args:", "flops: \"2 * SIZES\"\nargs:");
    let err = parse(&bad).unwrap_err();
    assert_eq!(err.line, 21, "{err}");
    assert!(err.message.contains("unknown constant `SIZES`"), "{err}");
}

/// Each malformed spec must fail with a message naming the right chapter line.
#[test]
fn malformed_specs_name_their_line() {
    let cases: &[(&str, &str, usize, &str)] = &[
        ("unknown key", "block: [TPB]", 16, "unknown field `threads`"),
        // YAML would count each lone CR as a line; the chapter does not.
        (
            "lone carriage returns",
            "block: [TPB]",
            16,
            "unknown field `threads`",
        ),
        (
            "bad constant",
            "grid: [\"(SIZE + TPB - 1) / TPB\"]",
            14,
            "unknown constant `BLOCKS`",
        ),
        ("zero block", "block: [TPB]", 15, "must be at least 1"),
        (
            "arg missing",
            "args: [out, a, size]",
            21,
            "neither a buffer nor a scalar",
        ),
        (
            "expect length",
            "  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]",
            23,
            "lists 3 values",
        ),
        (
            "bad init word",
            "  a: { len: SIZE, init: arange }",
            18,
            "not a list of numbers",
        ),
        (
            "input without init",
            "  a: { len: SIZE, init: arange }",
            18,
            "needs an `init`",
        ),
        (
            "yaml boolean",
            "  a: { len: SIZE, init: arange }",
            18,
            "YAML read this as the boolean false",
        ),
        (
            "block too large",
            "block: [TPB]",
            15,
            "entry 1 is 4294967296; it can be at most 4,294,967,295",
        ),
        (
            "buffer past 32-bit indices",
            "  a: { len: SIZE, init: arange }",
            18,
            "1,099,511,627,776 elements; a buffer holds at most 4,294,967,295",
        ),
        (
            "teaching size too large to set up",
            "  a: { len: SIZE, init: arange }",
            18,
            "the teaching size is set up whenever the chapter is read",
        ),
        (
            "negative u32",
            "  size: { type: u32, value: SIZE }",
            20,
            "scalar `size` is -1; a u32 holds whole numbers from 0 to 4294967295",
        ),
        (
            "u32 past 2^32",
            "  size: { type: u32, value: SIZE }",
            20,
            "scalar `size` is 4294967300",
        ),
        (
            "bf16 scalar",
            "  size: { type: u32, value: SIZE }",
            20,
            "scalar `size` is bf16; scalars are passed as 32-bit words: use f32, i32 or u32",
        ),
        (
            "huge stress size",
            "  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]",
            25,
            "stress case: buffer `out` has 1,099,511,627,776 elements",
        ),
        (
            "tensor map wider than its swizzle",
            "  a: { len: SIZE, init: arange }",
            18,
            "the tensor map of `a`: the box's rows are 256 bytes, longer than the 128-byte swizzle",
        ),
        (
            "tensor map with an unknown key",
            "  a: { len: SIZE, init: arange }",
            18,
            "unknown field `swizzel`",
        ),
        (
            "tolerance on an input",
            "  a: { len: SIZE, init: arange }",
            18,
            "the tolerance of `a` is set on an input; only an output is judged",
        ),
        (
            "tolerance below the type's",
            "  out: { len: SIZE, output: true }",
            17,
            "the tolerance of `out` is 0.000000001; it must lie from its type's, 0.00001, up to 1",
        ),
    ];
    let replacement = |name: &str| match name {
        "unknown key" => "block: [TPB]\nthreads: 4",
        "lone carriage returns" => "block: [TPB]\r\r\r\nthreads: 4",
        "bad constant" => "grid: [BLOCKS]",
        "zero block" => "block: [\"TPB - 4\"]",
        "arg missing" => "args: [out, a, size, b]",
        "expect length" => "  out: [10, 11, 12]",
        "bad init word" => "  a: { len: SIZE, init: iota }",
        "input without init" => "  a: { len: SIZE }",
        "yaml boolean" => "  a: { len: N, init: arange }",
        "block too large" => "block: [4294967296]",
        "buffer past 32-bit indices" => "  a: { len: 1099511627776, init: arange }",
        "teaching size too large to set up" => "  a: { len: 268435456, init: arange }",
        "negative u32" => "  size: { type: u32, value: -1 }",
        "u32 past 2^32" => "  size: { type: u32, value: 4294967300 }",
        "bf16 scalar" => "  size: { type: bf16, value: 1 }",
        "huge stress size" => {
            "  out: [10, 11, 12, 13, 14, 15, 16, 17, 18]\nstress:\n  - { SIZE: 1099511627776 }"
        }
        "tensor map wider than its swizzle" => {
            "  a: { len: SIZE, init: arange, tensor_map: { box: [64], swizzle: 128 } }"
        }
        "tolerance on an input" => "  a: { len: SIZE, init: arange, tolerance: 0.001 }",
        "tolerance below the type's" => "  out: { len: SIZE, output: true, tolerance: 1e-9 }",
        "tensor map with an unknown key" => {
            "  a: { len: SIZE, init: arange, tensor_map: { box: [8], swizzel: 128 } }"
        }
        _ => unreachable!(),
    };
    for (name, target, line, message) in cases {
        let text = GOOD.replace(target, replacement(name));
        let err = parse(&text).expect_err(name);
        assert_eq!(err.line, *line, "{name}: {err}");
        assert!(err.message.contains(message), "{name}: {err}");
        assert_eq!(err.file, Path::new("ch.md"));
        assert!(!err.message.contains("column"), "{name}: {err}");
        // Advice to keep the teaching size small is for a size too large
        // to set up, never for a zero or a value past a type's range.
        assert_eq!(
            err.message.contains("keep it small"),
            *name == "teaching size too large to set up",
            "{name}: {err}"
        );
    }
}

/// A spec with neither `expect` nor `reference` is checked for hazards
/// alone; one with `expect` must name every output. (case, the spec's
/// tail after `args`, hazards only, or the error's words)
#[test]
fn hazards_only_specs_table() {
    let head = "id: p\ntitle: t\nkernel: k\ngrid: [1]\nblock: [4]\nbuffers:\n  \
                out: { len: 4, output: true }\n  more: { len: 2, output: true }\nargs: [out, more]\n";
    let cases: &[(&str, &str, Result<bool, &str>)] = &[
        ("no expect, no reference", "", Ok(true)),
        (
            "every output expected",
            "expect:\n  out: [0, 0, 0, 0]\n  more: [0, 0]\n",
            Ok(false),
        ),
        (
            "one output forgotten",
            "expect:\n  out: [0, 0, 0, 0]\n",
            Err("output `more` has no `expect` entry"),
        ),
    ];
    for (case, tail, want) in cases {
        let resolved = PuzzleSpec::parse(&format!("{head}{tail}"), Path::new("ch.md"), 100)
            .and_then(|spec| spec.resolve(&Constants::new()));
        match (resolved, want) {
            (Ok(resolved), Ok(only)) => {
                assert_eq!(resolved.hazards_only, *only, "{case}");
                assert_eq!(
                    resolved.outputs().all(|b| b.expect.is_none()),
                    *only,
                    "{case}"
                );
            }
            (Err(e), Err(words)) => assert!(e.message.contains(words), "{case}: {e}"),
            (got, _) => panic!("{case}: {:?}", got.map(|s| s.hazards_only)),
        }
    }
}
