//! The references worked by hand: the seeds' printouts, each family's
//! cases, the sampled ones against the whole, edges and mismatches.

use super::matmul::matmul;
use super::scans::exclusive_scan;
use super::stencils::conv2d;
use super::transformer::gelu_tanh;
use super::*;
use crate::spec::data::Dtype;

fn buffer(name: &str, shape: &[usize], values: Option<Vec<f64>>) -> Arg {
    Arg::Buffer(Buffer {
        name: name.into(),
        dtype: Dtype::F32,
        shape: shape.to_vec(),
        init: values,
        expect: None,
        scratch: false,
        tensor_map: None,
        rank: None,
        tolerance: None,
    })
}

fn spec(reference: &str, args: Vec<Arg>) -> Spec {
    Spec {
        id: "test".into(),
        title: String::new(),
        reference: reference.into(),
        constants: Default::default(),
        launches: vec![],
        args,
        flops: None,
        math: Default::default(),
        gpus: 1,
        bus_bytes: None,
        hazards_only: false,
        rounds: 1,
    }
}

fn arange(n: usize) -> Vec<f64> {
    (0..n).map(|i| i as f64).collect()
}

/// The references reproduce the seeds' printouts (book 001, blog 000, MatMul chapter 002).
#[test]
fn matches_the_seed_printouts() {
    type Case = (&'static str, Vec<Arg>, Vec<f64>);
    let a = |shape: &[usize], v: Vec<f64>| buffer("a", shape, Some(v));
    let b = |shape: &[usize], v: Vec<f64>| buffer("b", shape, Some(v));
    let iters = |n: u32| Arg::Scalar {
        name: "iters".into(),
        dtype: Dtype::U32,
        value: n.into(),
    };
    let cases: Vec<Case> = vec![
        (
            "p01_map",
            vec![a(&[4], arange(4))],
            vec![10.0, 11.0, 12.0, 13.0],
        ),
        (
            "p02_zip",
            vec![a(&[4], arange(4)), b(&[4], arange(4))],
            vec![0.0, 2.0, 4.0, 6.0],
        ),
        (
            "p05_broadcast",
            vec![a(&[2], arange(2)), b(&[2], arange(2))],
            vec![0.0, 1.0, 1.0, 2.0],
        ),
        ("sum", vec![a(&[5], arange(5))], vec![10.0]),
        // Centred 3-tap box over 0..5: each output adds its neighbours, zeros outside.
        (
            "conv1d_centered",
            vec![a(&[5], arange(5)), buffer("w", &[3], Some(vec![1.0; 3]))],
            vec![1.0, 3.0, 6.0, 9.0, 7.0],
        ),
        (
            "pooling",
            vec![a(&[8], arange(8))],
            vec![0.0, 1.0, 3.0, 6.0, 9.0, 12.0, 15.0, 18.0],
        ),
        (
            "dot",
            vec![a(&[8], arange(8)), b(&[8], arange(8))],
            vec![140.0],
        ),
        (
            "conv1d",
            vec![a(&[6], arange(6)), b(&[3], arange(3))],
            vec![5.0, 8.0, 11.0, 14.0, 5.0, 0.0],
        ),
        (
            "conv1d",
            vec![a(&[15], arange(15)), b(&[4], arange(4))],
            vec![
                14.0, 20.0, 26.0, 32.0, 38.0, 44.0, 50.0, 56.0, 62.0, 68.0, 74.0, 80.0, 41.0, 14.0,
                0.0,
            ],
        ),
        (
            "prefix_sum",
            vec![a(&[8], arange(8))],
            vec![0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0],
        ),
        // The debugging chapter's fifth case (no seed has it).
        (
            "reverse",
            vec![a(&[6], arange(6))],
            vec![5.0, 4.0, 3.0, 2.0, 1.0, 0.0],
        ),
        // The debugging chapter's third case (no seed has it).
        (
            "shift_left",
            vec![a(&[8], arange(8))],
            vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 0.0],
        ),
        ("shift_left", vec![a(&[1], vec![3.0])], vec![0.0]),
        (
            "prefix_sum_exclusive",
            vec![a(&[4], arange(4))],
            vec![0.0, 0.0, 1.0, 3.0],
        ),
        (
            "row_sum",
            vec![a(&[4, 6], arange(24))],
            vec![15.0, 51.0, 87.0, 123.0],
        ),
        (
            "column_sum",
            vec![a(&[2, 3], arange(6))],
            vec![3.0, 5.0, 7.0],
        ),
        (
            "matmul",
            vec![
                a(&[2, 2], arange(4)),
                b(&[2, 2], arange(4).iter().map(|v| 2.0 * v).collect()),
            ],
            vec![4.0, 6.0, 12.0, 22.0],
        ),
        (
            "transpose",
            vec![a(&[2, 3], arange(6))],
            vec![0.0, 3.0, 1.0, 4.0, 2.0, 5.0],
        ),
        (
            "two_branches",
            vec![a(&[4], arange(4)), iters(2)],
            vec![1.5, 1.0, 2.0, 1.5],
        ),
    ];
    for (name, args, want) in cases {
        assert_eq!(expected(&spec(name, args)).unwrap()["out"], want, "{name}");
    }
    // The complete scan ends at 105 (15 elements over two blocks).
    let scan = expected(&spec("prefix_sum", vec![a(&[15], arange(15))])).unwrap();
    assert_eq!(scan["out"].last(), Some(&105.0));
    // The 9×9 tiled matmul of the MatMul chapter starts 3672, 3744 and ends 61272.
    let nine = arange(81);
    let twice: Vec<f64> = nine.iter().map(|v| 2.0 * v).collect();
    let out = &expected(&spec("matmul", vec![a(&[9, 9], nine), b(&[9, 9], twice)])).unwrap()["out"];
    assert_eq!((out[0], out[1], out[80]), (3672.0, 3744.0, 61272.0));
    assert!(expected(&spec("p99_unknown", vec![])).is_none());
}

// ---- Part IV ----

/// Part IV's references, worked by hand: (reference, inputs, output name, values).
#[test]
fn part_iv_references() {
    type Case = (&'static str, Vec<Arg>, &'static str, Vec<f64>);
    let a = |shape: &[usize], v: Vec<f64>| buffer("a", shape, Some(v));
    let out = |name: &str, shape: &[usize]| buffer(name, shape, None);
    let iters = |n: u32| Arg::Scalar {
        name: "iters".into(),
        dtype: Dtype::U32,
        value: n.into(),
    };
    let mixed = vec![1.0, -1.0, 2.0, 0.0, -3.0, 4.0, -5.0, 6.0, 7.0];
    let edges = vec![-4.0, -3.75, -0.25, 0.0, 3.75, 4.0];
    let mut starts = vec![0.0; 16];
    for (bin, start) in starts.iter_mut().enumerate() {
        *start = match bin {
            0 => 0.0,
            1..=7 => 2.0,
            8 => 3.0,
            _ => 4.0,
        };
    }
    let cases: Vec<Case> = vec![
        (
            "forward_difference",
            vec![a(&[4], vec![0.0, 1.0, 3.0, 6.0])],
            "out",
            vec![1.0, 2.0, 3.0, -6.0],
        ),
        (
            "group_centre",
            vec![a(&[10], arange(10))],
            "out",
            vec![-3.5, -2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, -0.5, 0.5],
        ),
        (
            "group_scan",
            vec![a(&[10], arange(10))],
            "out",
            vec![0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 28.0, 8.0, 17.0],
        ),
        (
            "group_scan",
            vec![a(&[10], arange(10))],
            "excl",
            vec![0.0, 0.0, 1.0, 3.0, 6.0, 10.0, 15.0, 21.0, 0.0, 8.0],
        ),
        (
            "block_compact",
            vec![a(&[9], mixed.clone()), out("out", &[3, 4])],
            "out",
            vec![1.0, 2.0, 0.0, 0.0, 4.0, 6.0, 0.0, 0.0, 7.0, 0.0, 0.0, 0.0],
        ),
        (
            "block_compact",
            vec![a(&[9], mixed), out("out", &[3, 4])],
            "counts",
            vec![2.0, 2.0, 1.0],
        ),
        (
            "row_prefix_sum",
            vec![a(&[2, 3], arange(6))],
            "out",
            vec![0.0, 1.0, 3.0, 3.0, 7.0, 12.0],
        ),
        (
            "histogram",
            vec![a(&[6], edges.clone()), out("counts", &[16])],
            "counts",
            vec![
                2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.0,
            ],
        ),
        (
            "histogram",
            vec![a(&[6], edges), out("counts", &[16])],
            "starts",
            starts,
        ),
        (
            "normalize_rows",
            vec![a(&[2, 2], vec![3.0, 4.0, 0.0, 0.0])],
            "out",
            vec![0.6, 0.8, 0.0, 0.0],
        ),
        (
            "smooth_rows",
            vec![a(&[1, 4], vec![0.0, 4.0, 8.0, 4.0])],
            "out",
            vec![1.0, 4.0, 6.0, 5.0],
        ),
        (
            "smooth_rows",
            vec![a(&[1, 4], vec![0.0, 4.0, 8.0, 4.0]), iters(2)],
            "out",
            vec![1.75, 3.75, 5.25, 5.25],
        ),
    ];
    for (name, args, output, want) in cases {
        let got = expected(&spec(name, args)).unwrap();
        assert_eq!(got[output], want, "{name}: {output}");
    }
}

// ---- end Part IV ----

/// Softmax, by hand: equal logits share evenly, a difference of ln 3
/// gives 3:1, and moving a row by 1000 changes nothing (a plain exp of
/// 1000 is infinite even in f64).
#[test]
fn softmax_references() {
    let ln3 = 3f64.ln();
    let cases: Vec<(&str, Vec<f64>, usize, Vec<f64>)> = vec![
        ("equal logits", vec![2.0; 4], 4, vec![0.25; 4]),
        ("ln 3 apart", vec![ln3, 0.0], 2, vec![0.75, 0.25]),
        (
            "moved by 1000",
            vec![1000.0 + ln3, 1000.0],
            2,
            vec![0.75, 0.25],
        ),
        (
            "two rows",
            vec![0.0, 0.0, 5.0, 5.0 - ln3],
            2,
            vec![0.5, 0.5, 0.75, 0.25],
        ),
    ];
    for (what, values, cols, want) in cases {
        let rows = values.len() / cols;
        let a = buffer("a", &[rows, cols], Some(values));
        let got = &expected(&spec("softmax", vec![a])).unwrap()["out"];
        assert_eq!(got.len(), want.len(), "{what}");
        for (g, w) in got.iter().zip(&want) {
            assert!((g - w).abs() < 1e-12, "{what}: {got:?}, want {want:?}");
        }
    }
}

/// LayerNorm, by hand: a row of 1, 3 has mean 2 and variance 1, so it
/// becomes −1, 1 (less ε), then is scaled and shifted per column; the
/// residual version normalizes x + r.
#[test]
fn layer_norm_references() {
    let shrink = 1.0 / (1.0 + LAYER_NORM_EPS).sqrt();
    let cols = |name: &str, v: Vec<f64>| buffer(name, &[2], Some(v));
    let rows = |name: &str, v: Vec<f64>| buffer(name, &[v.len() / 2, 2], Some(v));
    let plain = expected(&spec(
        "layernorm",
        vec![
            rows("a", vec![1.0, 3.0, 10.0, 10.0]),
            cols("gamma", vec![2.0, 3.0]),
            cols("beta", vec![0.5, 0.0]),
        ],
    ))
    .unwrap();
    let want = [-2.0 * shrink + 0.5, 3.0 * shrink, 0.5, 0.0];
    for (g, w) in plain["out"].iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{:?}", plain["out"]);
    }
    let residual = expected(&spec(
        "add_layernorm",
        vec![
            rows("x", vec![0.0, 3.0]),
            rows("r", vec![1.0, 0.0]),
            cols("gamma", vec![1.0, 1.0]),
            cols("beta", vec![0.0, 0.0]),
        ],
    ))
    .unwrap();
    assert!((residual["out"][0] + shrink).abs() < 1e-12);
    assert!((residual["out"][1] - shrink).abs() < 1e-12);
    let mismatched = spec(
        "layernorm",
        vec![
            rows("a", vec![1.0, 3.0]),
            cols("gamma", vec![1.0, 1.0]),
            buffer("beta", &[3], Some(vec![0.0; 3])),
        ],
    );
    assert!(
        expected(&mismatched).is_none(),
        "a beta of the wrong length has no reference"
    );
}

/// RMSNorm, by hand: a row of 3, 4 has mean square 12.5, so it is
/// divided by √12.5 (less ε), with no mean taken away; a row of zeros
/// stays zero.
#[test]
fn rms_norm_reference() {
    let a = buffer("a", &[2, 2], Some(vec![3.0, 4.0, 0.0, 0.0]));
    let gamma = buffer("gamma", &[2], Some(vec![1.0, 2.0]));
    let out = &expected(&spec("rmsnorm", vec![a, gamma])).unwrap()["out"];
    let root = (12.5 + LAYER_NORM_EPS).sqrt();
    let want = [3.0 / root, 8.0 / root, 0.0, 0.0];
    for (g, w) in out.iter().zip(want) {
        assert!((g - w).abs() < 1e-12, "{out:?}");
    }
    let short = buffer("gamma", &[3], Some(vec![1.0; 3]));
    let a = buffer("a", &[1, 2], Some(vec![1.0, 1.0]));
    assert!(expected(&spec("rmsnorm", vec![a, short])).is_none());
}

/// The fused chain, by hand: GELU(0) = 0, GELU is nearly the identity
/// far above 0 and nearly 0 far below, and each column has its own bias
/// and scale.
#[test]
fn bias_gelu_scale_reference() {
    assert_eq!(gelu_tanh(0.0), 0.0);
    assert!((gelu_tanh(10.0) - 10.0).abs() < 1e-12);
    assert!(gelu_tanh(-10.0).abs() < 1e-12);
    // tanh form at 1: 0.5 · (1 + tanh(0.7978845608 · 1.044715)) = 0.841192
    assert!((gelu_tanh(1.0) - 0.841_192).abs() < 1e-6);
    let x = buffer("x", &[2, 2], Some(vec![-1.0, 10.0, 0.0, -20.0]));
    let bias = buffer("bias", &[2], Some(vec![1.0, 0.0]));
    let scale = buffer("scale", &[2], Some(vec![3.0, 2.0]));
    let out = &expected(&spec("bias_gelu_scale", vec![x, bias, scale])).unwrap()["out"];
    let want = [0.0, 20.0, 3.0 * gelu_tanh(1.0), 0.0];
    for (g, w) in out.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{out:?}");
    }
}

/// Attention, by hand: with equal scores every query averages the rows
/// of v; a key that scores far higher takes all the weight; heads do not
/// mix; and the sampled rows are the full reference's.
#[test]
fn attention_reference() {
    let q = buffer("q", &[2, 2, 1], Some(vec![0.0, 0.0, 100.0, -100.0]));
    let k = buffer("k", &[2, 2, 1], Some(vec![1.0, 2.0, 0.0, 1.0]));
    let v = buffer("v", &[2, 2, 1], Some(vec![4.0, 8.0, -1.0, 3.0]));
    let attention = spec("attention", vec![q, k, v]);
    let out = &expected(&attention).unwrap()["out"];
    // head 0: q = 0 scores both keys 0: the mean of 4 and 8. Head 1:
    // q = 100 prefers key 1 (score 100 against 0), q = -100 key 0.
    let want = [6.0, 6.0, 3.0, -1.0];
    for (g, w) in out.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{out:?}");
    }
    let (output, sample) = sampled(&attention, 1e9).unwrap();
    assert_eq!(output, "out");
    assert_eq!(sample.len(), 4, "every row fits the budget");
    for (i, value) in sample {
        assert_eq!(value, out[i]);
    }
    let flat = buffer("q", &[4], Some(vec![0.0; 4]));
    let k = buffer("k", &[4], Some(vec![0.0; 4]));
    let v = buffer("v", &[4], Some(vec![0.0; 4]));
    assert!(expected(&spec("attention", vec![flat, k, v])).is_none());
    // The same length is not the same shape; a sized spec's empty inputs
    // have no rows to read.
    let q = buffer("q", &[2, 2, 1], Some(vec![0.0; 4]));
    let reshaped = buffer("k", &[1, 2, 2], Some(vec![0.0; 4]));
    let v = buffer("v", &[2, 2, 1], Some(vec![0.0; 4]));
    assert!(expected(&spec("attention", vec![q.clone(), reshaped, v.clone()])).is_none());
    let empty = buffer("k", &[2, 2, 1], Some(vec![]));
    assert!(expected(&spec("attention", vec![q, empty, v])).is_none());
}

/// Causal attention, by hand: the first query of each head sees its own
/// key only, so it copies that row of v; the second sees both, as in
/// `attention`; and the sampled rows are the full reference's.
#[test]
fn attention_causal_reference() {
    let q = buffer("q", &[2, 2, 1], Some(vec![0.0, 0.0, 100.0, -100.0]));
    let k = buffer("k", &[2, 2, 1], Some(vec![1.0, 2.0, 0.0, 1.0]));
    let v = buffer("v", &[2, 2, 1], Some(vec![4.0, 8.0, -1.0, 3.0]));
    let causal = spec("attention_causal", vec![q, k, v]);
    let out = &expected(&causal).unwrap()["out"];
    // Head 0: query 0 sees key 0 (4); query 1 both keys, equal scores (6).
    // Head 1: query 0 sees key 0 (-1); query 1 prefers key 0 (-1).
    let want = [4.0, 6.0, -1.0, -1.0];
    for (g, w) in out.iter().zip(want) {
        assert!((g - w).abs() < 1e-9, "{out:?}");
    }
    let (_, sample) = sampled(&causal, 1e9).unwrap();
    for (i, value) in sample {
        assert_eq!(value, out[i]);
    }
}

/// An embedding, by hand: each token's row of the table, in the ids'
/// order, repeats included; an id past the table has no reference.
#[test]
fn embedding_reference() {
    let table = buffer(
        "table",
        &[3, 2],
        Some(vec![0.0, 1.0, 10.0, 11.0, 20.0, 21.0]),
    );
    let ids = buffer("ids", &[4], Some(vec![2.0, 0.0, 2.0, 1.0]));
    let out = &expected(&spec("embedding", vec![table.clone(), ids])).unwrap()["out"];
    assert_eq!(out, &[20.0, 21.0, 0.0, 1.0, 20.0, 21.0, 10.0, 11.0]);
    let past = buffer("ids", &[1], Some(vec![3.0]));
    assert!(expected(&spec("embedding", vec![table, past])).is_none());
}

#[test]
fn sampled_matmul_agrees_with_the_full_one() {
    // (rows, inner, cols, budget): from one output to every output.
    let cases = [(3, 4, 5, 1.0, 1), (8, 8, 8, 64.0, 4), (6, 2, 4, 1e9, 24)];
    for (m, k, n, budget, count) in cases {
        let a: Vec<f64> = (0..m * k).map(|i| (i % 7) as f64 - 3.0).collect();
        let b: Vec<f64> = (0..k * n).map(|i| (i % 5) as f64 * 0.5).collect();
        let spec = spec(
            "matmul",
            vec![
                buffer("out", &[m, n], None),
                buffer("a", &[m, k], Some(a)),
                buffer("b", &[k, n], Some(b)),
            ],
        );
        let full = &expected(&spec).unwrap()["out"];
        let (_, sample) = sampled(&spec, budget).unwrap();
        assert_eq!(sample.len(), count, "{m}x{k}x{n}");
        let mut seen = std::collections::BTreeSet::new();
        for (flat, value) in sample {
            assert!(seen.insert(flat), "{flat} twice");
            assert_eq!(value, full[flat], "{m}x{k}x{n} at {flat}");
        }
    }
    assert!(sampled(&spec("sum", vec![]), 1e9).is_none());
}

/// FP8's scaled product takes b transposed and multiplies by both scales;
/// its sample is the whole product's at the sampled elements.
#[test]
fn scaled_matmul_reads_b_transposed() {
    let scalar = |name: &str, value: f64| Arg::Scalar {
        name: name.into(),
        dtype: Dtype::F32,
        value,
    };
    // a = [[1, 2], [3, 4]]; b = [[5, 6], [7, 8]] given as bt = [[5, 7], [6, 8]].
    let spec = spec(
        "matmul_scaled",
        vec![
            buffer("out", &[2, 2], None),
            buffer("a", &[2, 2], Some(vec![1.0, 2.0, 3.0, 4.0])),
            buffer("bt", &[2, 2], Some(vec![5.0, 7.0, 6.0, 8.0])),
            scalar("scale_a", 0.5),
            scalar("scale_b", 0.25),
        ],
    );
    // a · b = [[19, 22], [43, 50]], times 1/8.
    let full = &expected(&spec).unwrap()["out"];
    assert_eq!(full, &[2.375, 2.75, 5.375, 6.25]);
    let (name, sample) = sampled(&spec, 1e9).unwrap();
    assert_eq!(name, "out");
    for (flat, value) in sample {
        assert_eq!(value, full[flat], "at {flat}");
    }
}

/// Attention backward's sampled rows of dq are the full reference's, and a
/// small budget still samples one whole row.
#[test]
fn sampled_attention_backward_is_the_full_dq() {
    let (heads, seq, dim) = (2, 5, 3);
    let values = |seed: usize| -> Vec<f64> {
        (0..heads * seq * dim)
            .map(|i| ((i * 7 + seed * 3) % 11) as f64 / 4.0 - 1.0)
            .collect()
    };
    let tensors = ["q", "k", "v", "dout"]
        .iter()
        .enumerate()
        .map(|(seed, name)| buffer(name, &[heads, seq, dim], Some(values(seed))))
        .collect();
    let spec = spec("attention_backward", tensors);
    let full = &expected(&spec).unwrap()["dq"];
    for (budget, rows) in [(1.0, 1), (1e9, heads * seq)] {
        let (output, sample) = sampled(&spec, budget).unwrap();
        assert_eq!(output, "dq");
        assert_eq!(sample.len(), rows * dim, "budget {budget}");
        for (flat, value) in sample {
            assert!(
                (value - full[flat]).abs() < 1e-12,
                "dq[{flat}]: {value} against {}",
                full[flat]
            );
        }
    }
}

#[test]
fn edges_and_mismatches() {
    // 2D convolution: a 3×3 box of ones over ones reads zeros past the bottom-right edge.
    let ones = |n| vec![1.0; n];
    let out = conv2d(&ones(16), (4, 4), &ones(9), (3, 3));
    assert_eq!(out[0], 9.0);
    assert_eq!(out[3], 3.0, "last column sees one column");
    assert_eq!(out[15], 1.0, "bottom-right corner sees itself");
    assert_eq!(matmul(&ones(6), (2, 3), &ones(6), (2, 3)), None, "3 ≠ 2");
    assert_eq!(exclusive_scan(&[]), Vec::<f64>::new());
}

/// The row-streamed product gives the bits of a dot product summed in
/// order, signed zeros included: (case, a's values, b's values).
#[test]
fn matmul_has_the_bits_of_ordered_dot_products_table() {
    let (m, k, n) = (5, 7, 6);
    let thirds = |len: usize, seed: u64| -> Vec<f64> {
        (0..len as u64)
            .map(|i| ((i * 2_654_435_761 + seed) % 1000) as f64 / 3.0 - 150.0)
            .collect()
    };
    let cases = [
        ("rounding in every sum", thirds(m * k, 1), thirds(k * n, 2)),
        ("negative zeros", vec![-0.0; m * k], vec![1.0; k * n]),
        ("mixed zeros", vec![-0.0; m * k], vec![-1.0; k * n]),
    ];
    for (case, a, b) in cases {
        let out = matmul(&a, (m, k), &b, (k, n)).unwrap();
        for row in 0..m {
            for col in 0..n {
                let dot: f64 = (0..k).map(|i| a[row * k + i] * b[i * n + col]).sum();
                assert_eq!(
                    out[row * n + col].to_bits(),
                    dot.to_bits(),
                    "{case} at {row},{col}"
                );
            }
        }
    }
}
