//! End-to-end tests of the interpreter through [`crate::run`]: subgroup
//! operations at several subgroup sizes, atomics, and buffers seen as
//! vectors. Each builds a small kernel, runs it on words, and compares every
//! output with what WGSL defines, computed here from the subgroup size.

use crate::{Binding, Config, Kind, Launch, Run, TextLines, run};

/// Invocations in the one workgroup of these tests.
const N: u32 = 64;

const HEADER: &str = "@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@group(0) @binding(1) var<storage, read> a: array<f32>;
";

/// `src` parsed and validated, as a caller hands it to [`run`].
pub(crate) fn module(src: &str) -> naga::Module {
    let module = naga::front::wgsl::parse_str(src).expect("test WGSL parses");
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .expect("test WGSL validates");
    module
}

/// Runs `body` (the inside of an entry point where `i` is the local index
/// and `v` is `a[i]` = i as f32) over one workgroup of [`N`], with
/// subgroups of `size`.
fn run_body(body: &str, size: u32, extra: &str) -> Run {
    let src = format!(
        "{HEADER}{extra}
@compute @workgroup_size({N})
fn main(@builtin(local_invocation_index) i: u32,
        @builtin(subgroup_invocation_id) lane: u32,
        @builtin(subgroup_size) sg_size: u32) {{
    let v = a[i];
{body}
}}"
    );
    let config = Config {
        subgroup_size: size,
        seed: 5,
        ..Config::default()
    };
    run_source(&src, &config).expect("runs")
}

/// Runs the entry point `main` of `src` over one workgroup of [`N`], `out`
/// all NaN and `a[i]` = i as f32.
fn run_source(src: &str, config: &Config) -> Result<Run, crate::Error> {
    let m = module(src);
    let launch = Launch {
        entry: "main".into(),
        grid: [1, 1, 1],
        block: [N, 1, 1],
    };
    let bindings = [
        Binding {
            group: 0,
            binding: 0,
            words: vec![f32::NAN.to_bits(); N as usize],
            len: N as usize,
            poisoned: false,
        },
        Binding {
            group: 0,
            binding: 1,
            words: (0..N).map(|i| (i as f32).to_bits()).collect(),
            len: N as usize,
            poisoned: false,
        },
    ];
    run(&m, &[launch], &bindings, &TextLines::new(src), config)
}

fn floats(words: &[u32]) -> Vec<f32> {
    words.iter().map(|&w| f32::from_bits(w)).collect()
}

/// (name, body, expected out[i] given i and the subgroup size).
type Case = (&'static str, &'static str, fn(u32, u32) -> f32);

#[test]
fn subgroup_operations_table() {
    let base = |i: u32, s: u32| i - i % s;
    let cases: &[Case] = &[
        ("lane builtin", "out[i] = f32(lane);", |i, s| (i % s) as f32),
        ("size builtin", "out[i] = f32(sg_size);", |_, s| s as f32),
        ("reduce add", "out[i] = subgroupAdd(v);", |i, s| {
            let b = i - i % s;
            (b..b + s).sum::<u32>() as f32
        }),
        (
            "reduce mul",
            "out[i] = subgroupMul(select(1.0, 2.0, lane < 3u));",
            |_, _| 8.0,
        ),
        ("reduce max", "out[i] = f32(subgroupMax(i));", |i, s| {
            (i - i % s + s - 1) as f32
        }),
        (
            "reduce min",
            "out[i] = f32(subgroupMin(i32(i)));",
            |i, s| (i - i % s) as f32,
        ),
        (
            "reduce and",
            "out[i] = f32(subgroupAnd(i | 1u) & 1u);",
            |_, _| 1.0,
        ),
        (
            "reduce or",
            "out[i] = f32(subgroupOr(1u << lane) == select((1u << sg_size) - 1u, 0xffffffffu, sg_size == 32u));",
            |_, _| 1.0,
        ),
        ("reduce xor", "out[i] = f32(subgroupXor(1u));", |_, s| {
            (s % 2) as f32
        }),
        (
            "inclusive add",
            "out[i] = subgroupInclusiveAdd(v);",
            |i, s| (i - i % s..=i).sum::<u32>() as f32,
        ),
        (
            "exclusive add",
            "out[i] = subgroupExclusiveAdd(v);",
            |i, s| (i - i % s..i).sum::<u32>() as f32,
        ),
        (
            "inclusive mul",
            "out[i] = subgroupInclusiveMul(2.0);",
            |i, s| 2f32.powi((i % s + 1) as i32),
        ),
        (
            "exclusive mul",
            "out[i] = subgroupExclusiveMul(2.0);",
            |i, s| 2f32.powi((i % s) as i32),
        ),
        ("all", "out[i] = f32(subgroupAll(i < 1000u));", |_, _| 1.0),
        ("any", "out[i] = f32(subgroupAny(lane == 3u));", |_, _| 1.0),
        (
            "not all",
            "out[i] = f32(subgroupAll(lane != 3u));",
            |_, _| 0.0,
        ),
        (
            "ballot",
            "out[i] = f32(countOneBits(subgroupBallot(lane % 2u == 0u).x));",
            |_, s| (s / 2) as f32,
        ),
        (
            "broadcast first",
            "out[i] = subgroupBroadcastFirst(v);",
            |i, s| (i - i % s) as f32,
        ),
        ("broadcast", "out[i] = subgroupBroadcast(v, 1u);", |i, s| {
            (i - i % s + 1) as f32
        }),
        (
            "shuffle",
            "out[i] = subgroupShuffle(v, sg_size - 1u - lane);",
            |i, s| (i - i % s + s - 1 - i % s) as f32,
        ),
        (
            "shuffle xor",
            "out[i] = subgroupShuffleXor(v, 1u);",
            |i, _| (i ^ 1) as f32,
        ),
        (
            "shuffle down",
            "out[i] = subgroupShuffleDown(v, 1u);",
            |i, s| {
                if i % s + 1 < s {
                    (i + 1) as f32
                } else {
                    i as f32
                }
            },
        ),
        (
            "shuffle up",
            "out[i] = subgroupShuffleUp(v, 2u);",
            |i, s| {
                if i % s >= 2 { (i - 2) as f32 } else { i as f32 }
            },
        ),
        ("barrier", "subgroupBarrier();\n out[i] = v;", |i, _| {
            i as f32
        }),
        ("vector", "out[i] = subgroupAdd(vec2(v, 1.0)).y;", |_, s| {
            s as f32
        }),
    ];
    let _ = base;
    for size in [8, 32] {
        for (name, body, want) in cases {
            let got = run_body(body, size, "");
            assert!(
                got.findings.hazards.is_empty(),
                "{name} at {size}: {:#?}",
                got.findings.hazards
            );
            let out = floats(&got.buffers[0]);
            for i in 0..N {
                assert_eq!(
                    out[i as usize],
                    want(i, size),
                    "{name}, subgroups of {size}, invocation {i}"
                );
            }
        }
    }
}

/// A subgroup operation inside a branch half the subgroup takes is flagged;
/// its twin, every invocation contributing (0 where the branch was not
/// taken), is not, and both sum the same values.
#[test]
fn divergent_subgroup_operation_is_flagged_and_its_twin_is_not() {
    let flagged = "if (lane % 2u == 0u) {\n out[i] = subgroupAdd(1.0);\n}";
    let twin = "let s = subgroupAdd(select(0.0, 1.0, lane % 2u == 0u));\nif (lane % 2u == 0u) {\n out[i] = s;\n}";
    for size in [8, 32] {
        let got = run_body(flagged, size, "");
        assert!(
            got.findings
                .hazards
                .iter()
                .any(|h| h.kind == Kind::DivergentSubgroup
                    && h.message.contains(&format!("{} of the {size}", size / 2))),
            "{size}: {:#?}",
            got.findings.hazards
        );
        let got_twin = run_body(twin, size, "");
        assert!(
            got_twin.findings.hazards.is_empty(),
            "{size}: {:#?}",
            got_twin.findings.hazards
        );
        assert_eq!(floats(&got.buffers[0])[0], floats(&got_twin.buffers[0])[0]);
    }
}

/// Every atomic read-modify-write on one workgroup word, each giving a
/// result that does not depend on the order the invocations ran in:
/// (name, the operation, the word's first value, its final value).
#[test]
fn atomics_table() {
    let cases: &[(&str, &str, u32, u32)] = &[
        ("add", "atomicAdd(&word, i)", 0, (0..N).sum()),
        ("sub", "atomicSub(&word, 1u)", 100, 100 - N),
        ("min", "atomicMin(&word, i + 5u)", 1000, 5),
        ("max", "atomicMax(&word, i)", 0, N - 1),
        ("and", "atomicAnd(&word, ~(1u << (i % 32u)))", u32::MAX, 0),
        ("or", "atomicOr(&word, 1u << (i % 32u))", 0, u32::MAX),
        ("xor", "atomicXor(&word, 1u << (i % 4u))", 0, 0),
    ];
    for (name, op, first, last) in cases {
        let body = format!(
            " if (i == 0u) {{ atomicStore(&word, {first}u); }}\n workgroupBarrier();\n \
             _ = {op};\n workgroupBarrier();\n out[i] = f32(atomicLoad(&word) == {last}u);"
        );
        let got = run_body(&body, 32, "var<workgroup> word: atomic<u32>;");
        assert!(
            got.findings.hazards.is_empty(),
            "{name}: {:#?}",
            got.findings.hazards
        );
        assert!(
            floats(&got.buffers[0]).iter().all(|&x| x == 1.0),
            "{name}: {:?}",
            floats(&got.buffers[0])
        );
    }
}

/// Compare-exchange: exactly one invocation swaps 0 for its id + 1 and sees
/// `exchanged`; the others see that value as `old_value`. Exchange hands
/// each invocation a different old value.
#[test]
fn compare_exchange_and_exchange() {
    let body = " let r = atomicCompareExchangeWeak(&word, 0u, i + 1u);\n \
                workgroupBarrier();\n let now = atomicLoad(&word);\n \
                out[i] = select(0.0, 1.0, r.exchanged) + select(0.0, 10.0, r.exchanged == (now == i + 1u)) \
                + select(0.0, 100.0, r.exchanged || r.old_value == now);";
    let got = run_body(body, 32, "var<workgroup> word: atomic<u32>;");
    assert!(
        got.findings.hazards.is_empty(),
        "{:#?}",
        got.findings.hazards
    );
    let out = floats(&got.buffers[0]);
    assert_eq!(out.iter().filter(|&&x| x == 111.0).count(), 1, "{out:?}");
    assert_eq!(
        out.iter().filter(|&&x| x == 110.0).count(),
        N as usize - 1,
        "{out:?}"
    );

    let body = " let old = atomicExchange(&word, i + 1u);\n out[i] = f32(old);";
    let got = run_body(body, 32, "var<workgroup> word: atomic<u32>;");
    let mut olds = floats(&got.buffers[0]);
    olds.sort_by(f32::total_cmp);
    olds.dedup();
    assert_eq!(olds.len(), N as usize, "every old value differs: {olds:?}");
}

/// Atomics count as one read and one write each (see [`crate::access`]).
#[test]
fn atomics_count_as_a_read_and_a_write() {
    let extra = "@group(0) @binding(2) var<storage, read_write> counter: atomic<u32>;";
    let src_body = " _ = atomicAdd(&counter, 1u);\n out[i] = v;";
    let src = format!(
        "{HEADER}{extra}
@compute @workgroup_size({N})
fn main(@builtin(local_invocation_index) i: u32) {{
    let v = a[i];
{src_body}
}}"
    );
    let m = module(&src);
    let bindings: Vec<Binding> = [N, N, 1]
        .iter()
        .enumerate()
        .map(|(b, &len)| Binding {
            group: 0,
            binding: b as u32,
            words: vec![0; len as usize],
            len: len as usize,
            poisoned: false,
        })
        .collect();
    let launch = Launch {
        entry: "main".into(),
        grid: [1, 1, 1],
        block: [N, 1, 1],
    };
    let got = run(
        &m,
        &[launch],
        &bindings,
        &TextLines::new(&src),
        &Config::default(),
    )
    .expect("runs");
    assert_eq!(got.buffers[2], [N]);
    assert_eq!(
        (
            got.findings.access.reads.max,
            got.findings.access.writes.max
        ),
        (2, 2)
    );
    assert_eq!(got.findings.access.reads.total, 2 * u64::from(N));
}

/// Runs `body` (where `i` is the global index) with `n` invocations over
/// `out` and `a`, both `array<ty>`, with `out_words` and `a` words bound and
/// a guard band of 8 words after each. `a` holds 0, 1, 2, … as `kind` says.
fn run_vectors(ty: &str, body: &str, n: u32, out_words: usize, a: &[u32]) -> (Run, String) {
    let src = format!(
        "@group(0) @binding(0) var<storage, read_write> out: array<{ty}>;
@group(0) @binding(1) var<storage, read> a: array<{ty}>;
@compute @workgroup_size({n})
fn main(@builtin(global_invocation_id) g: vec3<u32>) {{
    let i = g.x;
{body}
}}"
    );
    let m = module(&src);
    let launch = Launch {
        entry: "main".into(),
        grid: [1, 1, 1],
        block: [n, 1, 1],
    };
    let guard = [0xdead_beef; 8];
    let bindings = [
        Binding {
            group: 0,
            binding: 0,
            words: [vec![0; out_words], guard.to_vec()].concat(),
            len: out_words,
            poisoned: false,
        },
        Binding {
            group: 0,
            binding: 1,
            words: [a, &guard].concat(),
            len: a.len(),
            poisoned: false,
        },
    ];
    let config = Config {
        seed: 7,
        ..Config::default()
    };
    let got = run(&m, &[launch], &bindings, &TextLines::new(&src), &config).expect("runs");
    (got, src)
}

/// A map over vectors of every kind and width the checker binds: each word
/// doubled, the guard band untouched, no hazards, and one vector load and
/// one vector store counted as one read and one write.
#[test]
fn vector_buffers_map_word_for_word() {
    let f = |x: u32| (x as f32).to_bits();
    let id = |x: u32| x;
    let cases: &[(&str, u32, &str, fn(u32) -> u32)] = &[
        ("vec4<f32>", 4, "a[i] * 2.0", f),
        ("vec2<f32>", 2, "a[i] * 2.0", f),
        ("vec4<u32>", 4, "a[i] * 2u", id),
        ("vec2<i32>", 2, "a[i] * 2i", id),
    ];
    let n = 8u32;
    for &(ty, width, expr, word) in cases {
        let words = (n * width) as usize;
        let a: Vec<u32> = (0..words as u32).map(word).collect();
        let (got, _) = run_vectors(ty, &format!("    out[i] = {expr};"), n, words, &a);
        assert!(
            got.findings.hazards.is_empty(),
            "{ty}: {:#?}",
            got.findings.hazards
        );
        let want: Vec<u32> = (0..words as u32).map(|x| word(2 * x)).collect();
        assert_eq!(got.buffers[0][..words], want, "{ty}");
        assert!(
            got.buffers[0][words..].iter().all(|&w| w == 0xdead_beef),
            "{ty}"
        );
        assert_eq!(
            (
                got.findings.access.reads.max,
                got.findings.access.writes.max
            ),
            (1, 1),
            "{ty}"
        );
    }
}

/// Bounds over `array<vec4<f32>>`, in the kernel's vec4 indices: (name,
/// body, words bound to `a`, the message expected, or `None` for a twin that
/// must pass). A trailing partial vector lies in the guard band.
#[test]
fn vector_bounds_table() {
    let cases: &[(&str, &str, usize, Option<&str>)] = &[
        (
            "one vec4 past the end",
            "    out[i] = a[i + 1u]; // here",
            8,
            Some("element 2 of `a`, which has 2 elements of type vec4<f32> (8 32-bit words bound)"),
        ),
        (
            "its twin, clamped",
            "    out[i] = a[min(i + 1u, arrayLength(&a) - 1u)]; // here",
            8,
            None,
        ),
        (
            "a ragged end read as a whole vec4",
            "    if (i < 3u) { out[i] = a[i]; } // here",
            10,
            Some(
                "element 2 of `a`, which has 2 elements of type vec4<f32> (10 32-bit words bound; its last 2 word(s) make no whole vec4<f32>",
            ),
        ),
        (
            "its twin, bounded by arrayLength",
            "    if (i < arrayLength(&a)) { out[i] = a[i]; } // here",
            10,
            None,
        ),
    ];
    for &(name, body, a_words, want) in cases {
        let a: Vec<u32> = (0..a_words as u32).map(|x| (x as f32).to_bits()).collect();
        let (got, src) = run_vectors("vec4<f32>", body, 4, 16, &a);
        let line = src.lines().position(|l| l.contains("// here")).unwrap() + 1;
        let lines = TextLines::new(&src);
        match want {
            Some(want) => assert!(
                got.findings
                    .hazards
                    .iter()
                    .any(|h| h.kind == Kind::OutOfBounds
                        && crate::LineMap::line(&lines, h.at) == line
                        && h.message.contains(want)),
                "{name}: {:#?}",
                got.findings.hazards
            ),
            None => assert!(
                got.findings.hazards.is_empty(),
                "{name}: {:#?}",
                got.findings.hazards
            ),
        }
    }
}

/// Races over vectors are per word: two invocations storing the same vec4
/// race, on its first word; four invocations each storing their own
/// component of one vec4 do not.
#[test]
fn vector_races_are_per_word() {
    let a = vec![0; 16];
    let (got, _) = run_vectors(
        "vec4<f32>",
        "    out[i / 2u] = vec4<f32>(f32(i));",
        8,
        16,
        &a,
    );
    assert!(
        got.findings.hazards.iter().any(|h| h.kind == Kind::Race
            && h.message.contains("`out[")
            && h.message.contains("][0]`")),
        "{:#?}",
        got.findings.hazards
    );
    let (got, _) = run_vectors("vec4<f32>", "    out[i / 4u][i % 4u] = f32(i);", 16, 16, &a);
    assert!(
        got.findings.hazards.is_empty(),
        "{:#?}",
        got.findings.hazards
    );
    assert_eq!(
        floats(&got.buffers[0][..16]),
        (0..16).map(|x| x as f32).collect::<Vec<_>>()
    );
}

/// A kernel that never ends is stopped at the line its running invocation
/// was at, and the report says who waited where: for an empty loop body,
/// the loop's own line; for a loop with a body, its statement.
#[test]
fn time_out_names_the_line_and_who_waits_table() {
    let cases = [
        // (body, the line reported, what the message says)
        ("    loop { }\n    out[i] = v;", 7, "still ran this line"),
        (
            "    workgroupBarrier();\n    if (i == 7u) {\n        loop { out[i] = v; }\n    }\n    workgroupBarrier();\n    out[i] = v;",
            9,
            "invocations (",
        ),
    ];
    for (body, line, says) in cases {
        let src = format!(
            "{HEADER}
@compute @workgroup_size({N})
fn main(@builtin(local_invocation_index) i: u32) {{
    let v = a[i];
{body}
}}"
        );
        let config = Config {
            limits: crate::Limits {
                timeout: std::time::Duration::ZERO,
                ..crate::Limits::default()
            },
            ..Config::default()
        };
        let lines = TextLines::new(&src);
        match run_source(&src, &config) {
            Err(crate::Error::TimedOut {
                span: Some(span),
                message,
            }) => {
                use crate::LineMap;
                assert_eq!(lines.line(span), line, "{body}: {message}");
                assert!(message.contains(says), "{body}: {message}");
            }
            other => panic!("{body}: expected a time-out with a line, got {other:?}"),
        }
    }
}
